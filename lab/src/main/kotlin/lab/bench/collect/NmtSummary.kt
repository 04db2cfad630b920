package lab.bench.collect

/**
 * A JVM's native memory as Native Memory Tracking counts it (`jcmd <pid> VM.native_memory
 * summary scale=b`, the JVM started with `-XX:NativeMemoryTracking=summary`): the committed
 * bytes of each of NMT's categories, which add up to its [totalCommittedBytes].
 */
data class NmtSummary(val totalCommittedBytes: Long, val committedBytesByCategory: Map<String, Long>) {
    /**
     * The memory.csv components: a few categories alone or grouped, and `nmt_rest` for every
     * other category, so the components add up to NMT's total committed, whatever categories
     * a JDK adds or leaves out (NMT prints no `Other` line until something is allocated there).
     */
    fun components(): Map<String, Long> {
        val grouped = COMPONENTS.mapValues { (_, categories) -> categories.sumOf { committedBytesByCategory[it] ?: 0L } }
        return grouped + (REST to totalCommittedBytes - grouped.values.sum())
    }

    companion object {
        /** The categories each component counts; NMT's `Other` is direct ByteBuffers and `Unsafe.allocateMemory`. */
        val COMPONENTS: Map<String, List<String>> = linkedMapOf(
            "nmt_heap" to listOf("Java Heap"),
            "nmt_thread" to listOf("Thread"),
            "nmt_gc" to listOf("GC"),
            "nmt_class" to listOf("Class", "Metaspace", "Shared class space"),
            "nmt_code" to listOf("Code", "Compiler"),
            "nmt_other" to listOf("Other"),
        )
        const val REST = "nmt_rest"

        /**
         * Reads the summary as JDK 21 and 25 print it in bytes: `Total: reserved=N, committed=N`,
         * then a line per category, `-                 Java Heap (reserved=N, committed=N)`
         * (JDK 25's Shared class space adds `, readonly=N`).
         */
        fun parse(text: String): NmtSummary {
            check("Native memory tracking is not enabled" !in text) {
                "NMT is off in the server's JVM: start it with -XX:NativeMemoryTracking=summary"
            }
            val total = text.lineSequence().firstNotNullOfOrNull { TOTAL.find(it) }
                ?: throw IllegalStateException("an NMT summary with no Total line in bytes (scale=b): ${text.take(300)}")
            val categories = text.lineSequence().mapNotNull { CATEGORY.find(it) }
                .associate { it.groupValues[1] to it.groupValues[2].toLong() }
            check(categories.isNotEmpty()) { "an NMT summary with no category: ${text.take(300)}" }
            return NmtSummary(total.groupValues[1].toLong(), categories)
        }

        // A figure followed by a unit (KB, MB) is not bytes: it does not match, so a summary at another scale fails.
        private val TOTAL = Regex("""^Total: reserved=\d+, committed=(\d+)(?=[,)\s]|$)""")
        private val CATEGORY = Regex("""^-\s+(\S.*?) \(reserved=\d+, committed=(\d+)[,)]""")
    }
}
