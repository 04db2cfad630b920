package lab.bench

/**
 * The JVM flags every server of a run starts with, declared once: the comparison is only
 * fair if all three get the same heap, collector and runtime. They go in the manifest as is.
 */
object JvmFlags {
    fun forServer(heapMb: Int, jdkFeature: Int, jmxPort: Int): List<String> = common(heapMb, jdkFeature) + jmxOnLoopback(jmxPort)

    /** The heap, collector and access flags, without JMX: also what the client experiments start their JVMs with. */
    fun common(heapMb: Int, jdkFeature: Int): List<String> = buildList {
        // A fixed heap: memory figures then show what the model costs, not heap resizing.
        add("-Xms${heapMb}m")
        add("-Xmx${heapMb}m")
        add("-XX:+UseZGC")
        // JDK 21 has both ZGC modes and defaults to the old one; 23 and later have only the generational one.
        if (jdkFeature in 21..22) add("-XX:+ZGenerational")
        // Netty looks for its native transport; without this, JDK 24+ prints a warning on every start.
        add("--enable-native-access=ALL-UNNAMED")
    }

    /**
     * JMX for the JFR stream, reachable from this machine only: bound to 127.0.0.1, and both
     * the registry and the RMI server on the one port, so nothing listens beyond loopback.
     */
    fun jmxOnLoopback(port: Int): List<String> = listOf(
        "-Dcom.sun.management.jmxremote.port=$port",
        "-Dcom.sun.management.jmxremote.rmi.port=$port",
        "-Dcom.sun.management.jmxremote.host=127.0.0.1",
        "-Djava.rmi.server.hostname=127.0.0.1",
        "-Dcom.sun.management.jmxremote.local.only=true",
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false",
    )
}
