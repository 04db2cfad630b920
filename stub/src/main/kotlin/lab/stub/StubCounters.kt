package lab.stub

import java.util.concurrent.atomic.AtomicLong

/**
 * Live counts behind [StubStats]; every call is counted started, then finished or cancelled, and every connection once, at
 * its first call.
 */
class StubCounters {
    val started = AtomicLong()
    val finished = AtomicLong()
    val cancelled = AtomicLong()
    val connections = AtomicLong()

    fun snapshot() = StubStats(started.get(), finished.get(), cancelled.get(), connections.get())
}
