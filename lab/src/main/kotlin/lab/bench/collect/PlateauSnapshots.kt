package lab.bench.collect

import lab.bench.load.LoadTimeline
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
 * Where the profile has warm sockets, the same again after the load: once at rest, when k6 has
 * closed the sockets it held and the server has answered every request, then at each warm step's
 * end. The figures per socket are fitted through each set on its own.
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
        memory.awaitIdle(System.nanoTime() + TimeUnit.SECONDS.toNanos(AT_REST_WAIT_S))
        memory.snapshot()
    }

    /**
     * Schedules each plateau's snapshot, counting from now: call it when k6's timeline starts. The plateaus are the socket steps,
     * and where the profile has warm sockets, their rest and their steps (LoadTimeline).
     */
    fun scheduleFromLoadStart() {
        val loadStartNs = System.nanoTime()
        val timeline = profile.timeline
        fun at(seconds: Int) = loadStartNs + TimeUnit.SECONDS.toNanos(seconds.toLong())
        for ((index, phase) in timeline.withIndex()) {
            val moment = momentOf(phase.name) ?: continue
            val holdNs = TimeUnit.SECONDS.toNanos((phase.toSeconds - phase.fromSeconds).toLong())
            val endNs = at(phase.toSeconds)
            val next = timeline.getOrNull(index + 1)
            // A next phase of sockets moves them at once; a warm-up moves nothing a snapshot counts, so the one before may use it,
            // up to the measured phase after it (the last cold step's, before /json's).
            val window = when {
                next == null -> Window(endNs - (SNAPSHOT_FRACTION * holdNs).toLong(), endNs, "the pass's end")
                next.ramp -> Window(endNs, at(next.toSeconds), "the measured ${timeline.getOrNull(index + 2)?.name ?: "end"} phase")
                else -> Window(endNs - (SNAPSHOT_FRACTION * holdNs).toLong(), endNs, next.name)
            }
            val startNs = at(phase.fromSeconds) + (STEP_FRACTION * holdNs).toLong() - loadStartNs
            executor.schedule({ atPlateauEnd(moment, phase.name, window) }, startNs, TimeUnit.NANOSECONDS)
        }
    }

    /** A snapshot starts by [lastStartNs] and ends by [endNs], where [next] begins. */
    private class Window(val lastStartNs: Long, val endNs: Long, val next: String)

    /** What a plateau's snapshot is called in [problems], or null for a phase that is none. */
    private fun momentOf(phase: String): String? {
        if (phase == LoadTimeline.WARM_SOCKETS_REST) return "the warm sockets' rest"
        for (step in 1..profile.socketSteps) {
            if (phase == LoadTimeline.socketStep(step)) return "the end of socket step $step"
            if (phase == LoadTimeline.warmSocketStep(step)) return "the end of warm socket step $step"
        }
        return null
    }

    private fun atPlateauEnd(moment: String, phase: String, window: Window) {
        if (System.nanoTime() - window.lastStartNs > 0) {
            problems += "the memory snapshot at $moment was skipped: the one before it ran past the last moment this one could start"
            return
        }
        take(moment) {
            // At rest, every socket the pass held is closed and every request answered; on a step, its sockets stop arriving.
            if (phase == LoadTimeline.WARM_SOCKETS_REST) {
                memory.awaitIdle(window.lastStartNs)
            } else {
                memory.awaitSteadySockets(window.lastStartNs)
            }
            // The plateau's phase, though the snapshot may end in the next: it is that plateau's.
            memory.snapshot(window.endNs - TAIL_NS, phase)
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
