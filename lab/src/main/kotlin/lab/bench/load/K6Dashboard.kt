package lab.bench.load

import java.io.File

/**
 * k6's own web dashboard (the xk6-dashboard output built into k6), declared once for every k6
 * the bench starts. It is k6's view of the load, live in a browser while a pass runs, and kept
 * at the pass's end as one HTML file ([FILE]) that the lab's report links to.
 *
 * It listens on 127.0.0.1 port 0, read back like the API's port, never picked free. On a load
 * generator it listens there too, though a browser here cannot reach it: its "no web server"
 * setting (port -1) opens a port on every interface instead (xk6-dashboard 0.8.1, in k6 1.8.1,
 * listens on the empty address it then makes). Only the export is fetched from there.
 */
object K6Dashboard {
    const val FILE = "k6-dashboard.html"

    /**
     * The dashboard's refresh, as the progress line's: a point every 5 s. k6 writes no export for a
     * run of one refresh or less.
     */
    private const val PERIOD = "5s"

    /** The environment that turns it on, listening on loopback and exporting to [export] when k6 ends. */
    fun environment(export: String): Map<String, String> = mapOf(
        "K6_WEB_DASHBOARD" to "true",
        "K6_WEB_DASHBOARD_HOST" to "127.0.0.1",
        // The kernel picks a free port as k6 binds it.
        "K6_WEB_DASHBOARD_PORT" to "0",
        "K6_WEB_DASHBOARD_PERIOD" to PERIOD,
        "K6_WEB_DASHBOARD_EXPORT" to export,
    )

    fun exportIn(dir: File) = File(dir, FILE)

    fun url(port: Int) = "http://127.0.0.1:$port"
}
