package lab.bench

import java.util.Locale

/** The run's last words on the terminal: a line per pass, with its status and the figures a person checks first. */
internal object OutcomeTable {
    private const val FIGURES = "%-4s %-7s %8s %10s %8s %12s %8s %8s %7s"

    fun of(outcomes: List<ServerOutcome>): String = buildString {
        val passes = outcomes.map { o -> o.server + (if (o.repeat > 1) " #${o.repeat}" else "") }
        // The first column as wide as its longest pass, so the figures line up whatever the servers are called.
        val format = "%-${(passes + "server").maxOf { it.length }}s $FIGURES"
        val columns = listOf("server", "JFR", "status", "sockets", "peak RSS", "threads", "/json p99", "/json/s", "dropped", "pinned")
        appendLine(String.format(Locale.ROOT, format, *columns.toTypedArray()))
        for ((o, pass) in outcomes.zip(passes)) {
            appendLine(
                String.format(
                    Locale.ROOT, format,
                    pass,
                    if (o.jfrStreaming) "on" else "off", o.status, o.peakOpenSockets ?: "-",
                    o.peakRssBytes?.let { "${it / (1 shl 20)} MiB" } ?: "-", o.peakThreads ?: "-",
                    o.jsonP99Ms?.let { String.format(Locale.ROOT, "%.2f ms", it) } ?: "-",
                    o.jsonPerSecond?.let { String.format(Locale.ROOT, "%.0f", it) } ?: "-",
                    o.jsonDroppedIterations ?: "-", o.pinnedEvents ?: "-",
                ),
            )
        }
    }.trimEnd()
}
