package lab.handlers

import java.lang.management.ManagementFactory
import java.util.concurrent.atomic.AtomicInteger

/**
 * The counts a server reports on `/stats`. Servers bump them; the core reads them. A socket is
 * counted through [openSocket], which also holds the [ballast] every open socket keeps.
 */
class LiveCounters(private val ballast: SocketBallast = SocketBallast.NONE) {
    val openSockets = AtomicInteger()
    val inFlightRequests = AtomicInteger()

    /** Counts one more open WebSocket, holding its ballast, until the returned socket is closed. */
    fun openSocket(): OpenSocket = OpenSocket(openSockets, ballast)

    /** Runs [block] counted as one request in flight. */
    inline fun <T> inFlight(block: () -> T): T {
        inFlightRequests.incrementAndGet()
        try {
            return block()
        } finally {
            inFlightRequests.decrementAndGet()
        }
    }

    fun snapshot(engine: String, model: String): ServerStats = ServerStats(
        engine = engine,
        model = model,
        openSockets = openSockets.get(),
        inFlightRequests = inFlightRequests.get(),
        threads = ManagementFactory.getThreadMXBean().threadCount,
    )
}
