package lab.support

/**
 * The garbage collector every server of a run gets, the same for all: an axis of the grid, as the JDK is one. ZGC is the lab's
 * own (its pauses stay under a millisecond beside 15,000 sockets, so a pass's tail is the model's, not the collector's); G1 is
 * the JDK's default, which most services run.
 *
 * The two lay objects out differently: ZGC has no compressed references, so a reference on its heap takes 8 bytes, and on
 * G1's, with a heap under 32 GiB, 4. So what a socket holds on the heap is the collector's as well as the model's.
 */
enum class Collector(
    /** How a command line, a manifest and a report name it. */
    val slug: String,
    /** What a reader sees. */
    val label: String,
) {
    ZGC("zgc", "ZGC"),
    G1("g1", "G1"),
    ;

    /** Its JVM flags on JDK [jdkFeature]. */
    fun flags(jdkFeature: Int): List<String> = when (this) {
        // JDK 21 has both ZGC modes and defaults to the old one; 23 and later have only the generational one.
        ZGC -> listOf("-XX:+UseZGC") + if (jdkFeature in 21..22) listOf("-XX:+ZGenerational") else emptyList()
        // Named, though it is the JDK's default: a JVM that counts under 2 CPUs, as a server on a CPU of its own does
        // (-XX:ActiveProcessorCount=1), picks Serial instead.
        G1 -> listOf("-XX:+UseG1GC")
    }

    companion object {
        /** The collector named [slug], or null. */
        fun of(slug: String): Collector? = entries.firstOrNull { it.slug == slug }
    }
}
