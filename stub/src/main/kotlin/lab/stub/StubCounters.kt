package lab.stub

import java.util.concurrent.atomic.AtomicLong

/** Live counts behind [StubStats]; every call is counted started, then finished or cancelled. */
class StubCounters {
    val started = AtomicLong()
    val finished = AtomicLong()
    val cancelled = AtomicLong()

    fun snapshot() = StubStats(started.get(), finished.get(), cancelled.get())
}
