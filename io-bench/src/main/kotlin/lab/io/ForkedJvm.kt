package lab.io

/**
 * The flags of the JVM every benchmark is forked into: declared once, and the same for every benchmark, so
 * no variant gets a different heap or collector.
 *
 * A fixed 1 GiB heap (`-Xms` = `-Xmx`) keeps heap resizing out of the timings while leaving room for the
 * 64 KiB buffers and whatever Ktor allocates per op. ZGC is the collector a latency-minded server on JDK 21+
 * would choose; it must be generational for a fair comparison across JDKs: on JDK 21 and 22 that takes
 * `-XX:+ZGenerational`, from JDK 23 it is the default (and from JDK 24 the flag is obsolete and warns).
 */
object ForkedJvm {
    private val COMMON_FLAGS = listOf("-Xms1g", "-Xmx1g", "-XX:+UseZGC")

    /** The flags for a JDK of feature release [jdkFeature]; the benchmarks fork the JDK that runs this tool. */
    fun flags(jdkFeature: Int = Runtime.version().feature()): List<String> =
        if (jdkFeature in 21..22) COMMON_FLAGS + "-XX:+ZGenerational" else COMMON_FLAGS
}
