package lab.bench.collect

import lab.bench.load.Profile
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * When a pass takes its server's memory apart ([MemoryCollector]): once before the first socket,
 * then near the end of each socket step, where the profile's timeline has the step's sockets all
 * open and no request load yet. k6 opens a step's sockets over the first half of its hold
 * (loadtests/bench.js), so at [STEP_FRACTION] of the hold they are open, and the rest of the hold
 * leaves the snapshot's full GC and two jcmd calls time to end before the next step begins.
 *
 * The snapshots run on a thread of their own, so the pass's once-a-second series go on meanwhile.
 * A snapshot that fails is a problem of the pass, in [problems], not the end of it.
 */
class PlateauSnapshots(private val memory: MemoryCollector, private val profile: Profile) : AutoCloseable {
    private val executor = Executors.newSingleThreadScheduledExecutor { Thread(it, "memory-snapshots").apply { isDaemon = true } }

    /** One sentence per snapshot that failed, for the pass's marks. */
    val problems: MutableList<String> = CopyOnWriteArrayList()

    /** The snapshot before any socket, taken now, on the caller's thread. */
    fun atRest() = take("before the first socket")

    /**
     * Schedules each step's snapshot, counting from now: call it when k6's timeline starts. Each
     * first waits for the server's socket count to settle, at most until the step's last sixth.
     */
    fun scheduleFromLoadStart() {
        val settleMs = (profile.stepHoldSeconds * 1000 * (1 - STEP_FRACTION - SNAPSHOT_FRACTION)).toLong().coerceAtLeast(0)
        for (step in 0 until profile.socketSteps) {
            val atMs = (step + STEP_FRACTION) * profile.stepHoldSeconds * 1000
            executor.schedule({ take("the end of socket step ${step + 1}", settleMs) }, atMs.toLong(), TimeUnit.MILLISECONDS)
        }
    }

    private fun take(moment: String, settleMs: Long = 0) {
        runCatching {
            if (settleMs > 0) memory.awaitSteadySockets(settleMs)
            memory.snapshot()
        }.onFailure { problems += "the memory snapshot at $moment failed: ${it.message}" }
    }

    /** Stops what has not run; one under way ends with its jcmd. */
    override fun close() {
        executor.shutdownNow()
        executor.awaitTermination(CLOSE_WAIT_S, TimeUnit.SECONDS)
    }

    companion object {
        /** Past half a step: its sockets opened in the first half; the wait for them to settle starts here. */
        const val STEP_FRACTION = 0.55

        /** The part of a step kept for the snapshot itself: a full GC, a histogram and NMT take a second or two. */
        const val SNAPSHOT_FRACTION = 1.0 / 6.0

        private const val CLOSE_WAIT_S = 5L
    }
}
