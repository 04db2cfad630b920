package lab.handlers

import java.lang.management.ManagementFactory
import java.util.concurrent.atomic.AtomicInteger

/** The counts a server reports on `/stats`. Servers bump them; the core reads them. */
class LiveCounters {
    val openSockets = AtomicInteger()
    val inFlightRequests = AtomicInteger()

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
