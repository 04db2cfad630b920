package lab.support

/**
 * The JVM flags of every JVM the lab starts, declared once. Every server of a run gets the same
 * heap, collector and runtime ([forServer]), since the comparison is only fair that way; they
 * go in the manifest as is. A JVM started to check behaviour rather than to measure it gets
 * [forCheck].
 */
object JvmFlags {
    fun forServer(heapMb: Int, jdkFeature: Int, collector: Collector = Collector.ZGC): List<String> =
        // NMT's summary is how the memory snapshots split native memory by category (threads, GC, class, code, direct buffers).
        common(heapMb, jdkFeature, collector) + "-XX:NativeMemoryTracking=summary"

    /** The heap, collector and access flags: also what the client experiments start their JVMs with. */
    fun common(heapMb: Int, jdkFeature: Int, collector: Collector = Collector.ZGC): List<String> = buildList {
        // A fixed heap: memory figures then show what the model costs, not heap resizing.
        add("-Xms${heapMb}m")
        add("-Xmx${heapMb}m")
        addAll(collector.flags(jdkFeature))
        add(NATIVE_ACCESS)
    }

    /** The tests' and the pinning audit's: a heap cap and native access, with the JDK's default collector. */
    fun forCheck(heapMb: Int): List<String> = listOf("-Xmx${heapMb}m", NATIVE_ACCESS)

    // Netty looks for its native transport; without this, JDK 24+ prints a warning on every start.
    private const val NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED"
}
