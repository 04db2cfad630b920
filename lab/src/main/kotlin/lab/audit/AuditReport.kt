package lab.audit

import lab.handlers.PinTrap

/**
 * The audit as a person reads it (`audit.md`): the subject x server x JDK matrix first, then
 * what each trap's fix is, the stack of every cell that pinned, and the thread counts that show
 * what the servers without virtual threads do instead.
 */
object AuditReport {
    fun markdown(cells: List<AuditCell>, header: String): String = buildString {
        val columns = cells.map { it.server to it.jdk }.distinct()
        val subjects = cells.map { it.subject }.distinct()
        fun cell(subject: String, column: Pair<String, Int>) = cells.first {
            it.subject == subject && it.server == column.first &&
                it.jdk == column.second
        }

        appendLine("# Virtual-thread pinning audit")
        appendLine()
        appendLine(header)
        appendLine()
        appendLine(
            "A cell is `no`, or the pinned events JFR recorded (`jdk.VirtualThreadPinned`, no threshold), their total time and, on JDK 24+, their `pinnedReason`. `MUST NOT PIN` marks a pinning path that is supposed to be safe. On JDK 21, `tracePinnedThreads` gives the reasons `-Djdk.tracePinnedThreads=full` printed for the path (once per distinct stack).",
        )
        appendLine()
        table(
            columns,
            subjects,
            "requests" to { subject ->
                cells.first { it.subject == subject }.requests.toString()
            },
        ) { subject, column ->
            describe(cell(subject, column))
        }
        appendLine()
        appendLine("## The fix for each trap")
        appendLine()
        PinTrap.entries.filter { !it.isFixed }.forEach { appendLine("- `${it.slug}`: ${it.fix} (see `${it.slug}-fixed`).") }
        val pinning = cells.filter { it.pinned }
        if (pinning.isNotEmpty()) {
            appendLine()
            appendLine("## The most frequent stack of each cell that pinned")
            appendLine()
            for (cell in pinning) {
                val blocked = if (cell.blockingOperations.isEmpty()) {
                    ""
                } else {
                    "; blocked in ${cell.blockingOperations.joinToString()}, holding ${cell.carrierThreads.size} carrier(s)"
                }
                appendLine("- `${cell.subject}` on ${cell.server}, JDK ${cell.jdk} (${cell.pinnedEvents}$blocked): `${cell.topStack}`")
            }
        }
        appendLine()
        appendLine("## OS threads after each subject")
        appendLine()
        appendLine(
            "Each trap's requests arrive at once. Without virtual threads a blocking request holds a pool thread (coroutine: `Dispatchers.IO`; platform: the server's pool), so what shows there is the pool growing, not pinning.",
        )
        appendLine()
        table(columns, subjects) { subject, column -> cell(subject, column).threadsAfter?.toString() ?: "" }
    }

    /** A subject x (server, JDK) table; [extra] is a column between the subject and the servers. */
    private fun StringBuilder.table(
        columns: List<Pair<String, Int>>,
        subjects: List<String>,
        extra: Pair<String, (String) -> String>? = null,
        value: (String, Pair<String, Int>) -> String,
    ) {
        val lead = listOfNotNull("subject", extra?.first)
        appendLine("| " + (lead + columns.map { "${it.first} JDK ${it.second}" }).joinToString(" | ") + " |")
        appendLine("|" + "---|".repeat(lead.size + columns.size))
        for (subject in subjects) {
            val cells = listOfNotNull("`$subject`", extra?.second?.invoke(subject)) + columns.map { value(subject, it) }
            appendLine("| " + cells.joinToString(" | ") + " |")
        }
    }

    fun describe(cell: AuditCell): String {
        val trace = cell.tracePinned?.takeIf { it.isNotEmpty() }?.let { " (tracePinnedThreads: ${it.joinToString()})" } ?: ""
        if (!cell.pinned) return "no$trace"
        val reasons = if (cell.reasons.isEmpty()) "" else "; " + kinds(cell.reasons).joinToString(", ")
        val alarm = if (cell.mustNotPin) "**MUST NOT PIN**: " else ""
        return "${alarm}pinned ${cell.pinnedEvents}x, %.0f ms$reasons$trace".format(cell.pinnedMs)
    }

    /** JDK 25's reasons name the class; the matrix counts kinds: "waited for another thread's class initialization (12 classes)". */
    private fun kinds(reasons: List<String>): List<String> {
        val waited = reasons.filter { it.startsWith("Waited for initialization of ") }
        val rest = reasons - waited.toSet()
        return rest +
            if (waited.isEmpty()) emptyList() else listOf("waited for another thread's class initialization (${waited.size} classes)")
    }
}
