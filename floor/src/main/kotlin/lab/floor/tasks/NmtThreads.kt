package lab.floor.tasks

/**
 * NMT's Thread category (the JVM started with `-XX:NativeMemoryTracking=summary`): what the
 * JVM itself committed for its threads, and of that, their stacks. A stack counts as committed
 * as far as its pages are resident, which NMT finds out when asked (not the 1 MiB reserved).
 */
data class NmtThreads(val committedBytes: Long, val stackCommittedBytes: Long) {
    companion object {
        /** Asks NMT for its summary, in bytes. */
        fun read(): NmtThreads = parse(DiagnosticCommand.run("vmNativeMemory", "summary", "scale=b"))

        /**
         * The Thread category of an NMT summary printed with `scale=b`, as JDK 21 and 25 print it:
         * `-  Thread (reserved=N, committed=N)`, then, among its lines, `(stack: reserved=N, committed=N, ...)`.
         */
        fun parse(summary: String): NmtThreads {
            val lines = summary.lines()
            val start = lines.indexOfFirst { THREAD.containsMatchIn(it) }
            check(start >= 0) { "no Thread category in NMT's summary; start the JVM with -XX:NativeMemoryTracking=summary" }
            val committed = COMMITTED.find(lines[start])?.groupValues?.get(1)?.toLong()
                ?: throw IllegalStateException("NMT's Thread line has no committed figure: ${lines[start]}")
            // The category's own lines follow it, up to the next category's `-` line.
            val own = lines.drop(start + 1).takeWhile { !it.trimStart().startsWith("-") }
            val stack = own.firstNotNullOfOrNull { STACK.find(it) }?.groupValues?.get(1)?.toLong()
                ?: throw IllegalStateException("NMT's Thread category has no stack line: ${own.joinToString(" ")}")
            return NmtThreads(committed, stack)
        }

        private val THREAD = Regex("""^-\s+Thread \(""")
        private val COMMITTED = Regex("""committed=(\d+)\b""")
        private val STACK = Regex("""\(stack: reserved=\d+, committed=(\d+)\b""")
    }
}
