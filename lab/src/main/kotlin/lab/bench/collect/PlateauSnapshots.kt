package lab.bench.collect

import lab.bench.load.Profile
import java.util.Locale
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * When a pass takes its server's memory apart ([MemoryCollector]): once before the first socket,
 * then near the end of each socket step, where the profile's timeline has the step's sockets all
 * open and no request load yet. k6 opens a step's sockets over the first half of its hold
 * (loadtests/bench.js), so at [STEP_FRACTION] of the hold they are open, or nearly: a server on
 * one CPU accepts them more slowly than k6 offers them (the platform server, about 500 a second).
 *
 * A snapshot belongs to its step, so its waits end with the step: the one for a steady socket
 * count by the step's last [SNAPSHOT_FRACTION], the one for an idle JIT a second before the next
 * step's first opens. After the last step nothing moves until /json is measured, so its snapshot
 * may use /json's warm-up: a full GC and class histogram of the platform server's threads, or
 * of Ktor's live heap, take seconds on its one CPU (docs/JOURNAL.md, "Figures that were in the
 * harness's comments"). A snapshot whose
 * time is gone before it starts (the one before ran long) is not taken; one during which the
 * sockets moved is not written ([MemoryCollector.snapshot]); one that ran into what follows it
 * says so in [problems].
 *
 * The snapshots run on a thread of their own, so the pass's once-a-second series go on meanwhile.
 * A snapshot that fails or is skipped is a problem of the pass, in [problems], not the end of it.
 */
class PlateauSnapshots(private val memory: MemoryCollector, private val profile: Profile) : AutoCloseable {
    private val executor = Executors.newSingleThreadScheduledExecutor { Thread(it, "memory-snapshots").apply { isDaemon = true } }

    /** One sentence per snapshot that failed or was skipped, for the pass's marks. */
    val problems: MutableList<String> = CopyOnWriteArrayList()

    /**
     * The snapshot before any socket, taken on the caller's thread once the contract check's
     * WebSocket, which it has just dropped, is gone from the server's count too.
     */
    fun atRest() = take("before the first socket") {
        memory.awaitNoSockets(System.nanoTime() + TimeUnit.SECONDS.toNanos(AT_REST_WAIT_S))
        memory.snapshot()
    }

    /** Schedules each step's snapshot, counting from now: call it when k6's timeline starts. */
    fun scheduleFromLoadStart() {
        val loadStartNs = System.nanoTime()
        val holdNs = TimeUnit.SECONDS.toNanos(profile.stepHoldSeconds.toLong())
        val jsonStartNs = loadStartNs + TimeUnit.SECONDS.toNanos(profile.jsonStartSeconds.toLong())
        for (step in 1..profile.socketSteps) {
            val stepEndNs = loadStartNs + step * holdNs
            // The next step's first sockets open at this step's end; after the last, nothing moves until /json is measured.
            val window = if (step < profile.socketSteps) {
                Window(lastStartNs = stepEndNs - (SNAPSHOT_FRACTION * holdNs).toLong(), endNs = stepEndNs, next = "socket step ${step + 1}")
            } else {
                Window(lastStartNs = stepEndNs, endNs = jsonStartNs, next = "the measured /json phase")
            }
            val atNs = ((step - 1 + STEP_FRACTION) * holdNs).toLong()
            executor.schedule({ atStepEnd(step, window) }, atNs, TimeUnit.NANOSECONDS)
        }
    }

    /** A step's snapshot starts by [lastStartNs] and ends by [endNs], where [next] begins. */
    private class Window(val lastStartNs: Long, val endNs: Long, val next: String)

    private fun atStepEnd(step: Int, window: Window) {
        val moment = "the end of socket step $step"
        if (System.nanoTime() - window.lastStartNs > 0) {
            problems += "the memory snapshot at $moment was skipped: the one before it ran past the last moment this one could start"
            return
        }
        take(moment) {
            memory.awaitSteadySockets(window.lastStartNs)
            // The step's phase, though the last step's may start as its hold ends: it is that step's plateau.
            memory.snapshot(window.endNs - TAIL_NS, RunClock.socketStep(step))
            val overNs = System.nanoTime() - window.endNs
            if (overNs > 0) problems += "the memory snapshot at $moment ran %.1f s into ${window.next}".format(Locale.ROOT, overNs / 1e9)
        }
    }

    private fun take(moment: String, snapshot: () -> Unit) {
        runCatching(snapshot).onFailure { problems += "the memory snapshot at $moment failed: ${it.message ?: it.javaClass.simpleName}" }
    }

    /** Stops what has not run; one under way ends with its jcmd. */
    override fun close() {
        executor.shutdownNow()
        executor.awaitTermination(CLOSE_WAIT_S, TimeUnit.SECONDS)
    }

    companion object {
        /** Past half a step: its sockets opened in the first half; the wait for them to settle starts here. */
        const val STEP_FRACTION = 0.55

        /** The part of a step in which no snapshot starts: what is left of it is too short for one, which takes seconds. */
        const val SNAPSHOT_FRACTION = 1.0 / 6.0

        /** What a snapshot does after the JIT's wait (the trim, NMT, /proc and the second socket count) takes well under this. */
        private val TAIL_NS = TimeUnit.SECONDS.toNanos(1)

        private const val CLOSE_WAIT_S = 5L

        /** Longest the at-rest snapshot waits for the server to let go of the contract check's socket. */
        private const val AT_REST_WAIT_S = 5L
    }
}
