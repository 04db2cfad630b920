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

    /** Schedules each step's snapshot, counting from now: call it when k6's timeline starts. */
    fun scheduleFromLoadStart() {
        for (step in 0 until profile.socketSteps) {
            val atMs = ((step + STEP_FRACTION) * profile.stepHoldSeconds * 1000).toLong()
            executor.schedule({ take("the end of socket step ${step + 1}") }, atMs, TimeUnit.MILLISECONDS)
        }
    }

    private fun take(moment: String) {
        runCatching { memory.snapshot() }.onFailure { problems += "the memory snapshot at $moment failed: ${it.message}" }
    }

    /** Stops what has not run; one under way ends with its jcmd. */
    override fun close() {
        executor.shutdownNow()
        executor.awaitTermination(CLOSE_WAIT_S, TimeUnit.SECONDS)
    }

    companion object {
        /** Two thirds into a step: its sockets opened in the first half, and a third is left for the snapshot. */
        const val STEP_FRACTION = 2.0 / 3.0

        private const val CLOSE_WAIT_S = 5L
    }
}
