package lab.bench.collect

/**
 * A JVM's live heap by class, as `jcmd <pid> GC.class_histogram` prints it. That command first
 * runs a full collection (ZGC runs a synchronous cycle just before it) and counts only objects
 * reachable from the roots, so its [totalBytes] hold no garbage and no free space in a region:
 * the live heap, exactly. [classes] are in the histogram's order, the largest first.
 */
data class HeapHistogram(val totalBytes: Long, val totalInstances: Long, val classes: List<Row>) {
    /** One class: its place by bytes (1 is the largest), its name without its module, its instances and their bytes. */
    data class Row(val rank: Int, val className: String, val instances: Long, val bytes: Long)

    companion object {
        /**
         * Reads jcmd's histogram, as JDK 21 and 25 print it:
         * `   1:          1583        6618608  [B (java.base@21.0.8)` a class, then `Total          8157        7097368`.
         */
        fun parse(text: String): HeapHistogram {
            val lines = text.lines()
            val total = lines.firstNotNullOfOrNull { TOTAL.matchEntire(it.trim()) }
                ?: throw IllegalStateException("a class histogram with no Total line: ${text.take(300)}")
            val classes = lines.mapNotNull { ROW.matchEntire(it.trim()) }.map { row ->
                val (rank, instances, bytes, name) = row.destructured
                Row(rank.toInt(), name, instances.toLong(), bytes.toLong())
            }
            return HeapHistogram(total.groupValues[2].toLong(), total.groupValues[1].toLong(), classes)
        }

        private val TOTAL = Regex("""Total\s+(\d+)\s+(\d+)""")

        // A class name holds no space; the module, where there is one, follows in parentheses.
        private val ROW = Regex("""(\d+):\s+(\d+)\s+(\d+)\s+(\S+)(?:\s+\(.*\))?""")
    }
}
