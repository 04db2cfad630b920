package lab.bench.load

import java.io.File

/**
 * k6's own web dashboard (the xk6-dashboard output built into k6), declared once for every k6
 * the bench starts. It is k6's view of the load, live in a browser while a pass runs, and kept
 * at the pass's end as one HTML file ([FILE]) that the lab's report links to.
 *
 * Beside the harness it listens on 127.0.0.1 port 0 (read back like the API's port, never picked
 * free). On a load generator it does not listen at all: only the export is written there, and
 * fetched with the segment's samples; a browser here could not reach that host's loopback.
 */
object K6Dashboard {
    const val FILE = "k6-dashboard.html"

    /** The dashboard's refresh, as the progress line's: a point every 5 s, 30 to a 2.5-minute pass. */
    private const val PERIOD = "5s"

    /** The environment that turns it on: [live] listens on loopback, else only [export] is written when k6 ends. */
    fun environment(export: String, live: Boolean): Map<String, String> = mapOf(
        "K6_WEB_DASHBOARD" to "true",
        "K6_WEB_DASHBOARD_HOST" to "127.0.0.1",
        // 0: the kernel picks a free port as k6 binds it; -1: no web server, the export only.
        "K6_WEB_DASHBOARD_PORT" to if (live) "0" else "-1",
        "K6_WEB_DASHBOARD_PERIOD" to PERIOD,
        "K6_WEB_DASHBOARD_EXPORT" to export,
    )

    fun exportIn(dir: File) = File(dir, FILE)

    fun url(port: Int) = "http://127.0.0.1:$port"
}
