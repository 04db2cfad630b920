package lab.bench.load

import lab.bench.collect.RunClock
import lab.bench.folder.SeriesCsv
import java.io.File
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import kotlin.math.log10
import kotlin.math.pow
import kotlin.math.roundToInt
import kotlin.math.sqrt

/**
 * Where a server's limit lies between two of the curve's steps: each search slot of an endpoint
 * ([LoadTimeline.searchStep]) is offered halfway, on a log scale, between the highest step the
 * server held so far and the lowest above it that it did not, as RFC 2544's throughput test
 * searches for the highest rate without loss. The ladder's steps are a third to twice apart
 * near the limits, and a limit that falls between two of them lands on either from pass to pass;
 * three halvings leave it within 2-9%.
 *
 * The search needs a step's outcome the moment it ends, before the analysis has anything to
 * read, so it keeps a guide of its own from the wire ([answered]): a step held when fewer than
 * 1% of the requests due in it were unanswered or answered over the profile's bound. It only
 * picks the rates; the analysis judges every step, searched or not, by its own rules
 * (labanalysis.curve.curve_verdicts), from the pass's series. Where the two disagree, the search
 * spent a step where it was not needed, and the figure is still the analysis's.
 *
 * Each choice is a row of `curve-search.csv` (run-folder.json): the planned phase (a search
 * slot, or a ladder step not offered), the rate offered (0 for none), and the two steps it lies
 * between.
 */
class CurveSearch(
    private val clock: RunClock,
    /** The profile's p99 bound for each endpoint's curve, in ms. */
    private val boundsMs: Map<String, Double>,
    dir: File,
) : AutoCloseable {
    /** What the guide makes of one step from the wire: the requests due in its window, those answered, and those over the bound. */
    data class Guide(val dueRequests: Int, val answeredRequests: Int, val overBoundRequests: Int) {
        /** Unanswered or over the bound: fewer than 1% of those due, as a p99 under the bound needs. */
        val held: Boolean get() = 100 * (overBoundRequests + maxOf(0, dueRequests - answeredRequests)) < dueRequests

        /** Unanswered: fewer than 1% of those due, however late the others were. */
        val keptUp: Boolean get() = 100 * maxOf(0, dueRequests - answeredRequests) < dueRequests
    }

    private class Tally {
        val answered = AtomicInteger()
        val overBound = AtomicInteger()
    }

    private val tallies = ConcurrentHashMap<String, Tally>()
    private val csv = SeriesCsv.create(dir, FILE)

    /** The latest arrival the wire has told of, in seconds of load: how far its reader has got. */
    @Volatile private var latestLoadS = 0.0

    /** A request the wire saw answered: it arrived at [atSeconds] on the clock, in [phase], and took [ms]. Called from the wire's reader. */
    fun answered(atSeconds: Double, phase: String, endpoint: String, ms: Double) {
        val loadS = clock.loadSeconds(atSeconds)
        if (loadS > latestLoadS) latestLoadS = loadS
        val step = clock.timeline.named(phase) ?: return
        if (step.endpoint != endpoint || step.ratePerSecond == 0 || phase != LoadTimeline.curveStep(endpoint, step.ratePerSecond)) return
        if (loadS >= step.toSeconds - WINDOW_MARGIN_S) return
        val bound = boundsMs[endpoint] ?: return
        val tally = tallies.computeIfAbsent(phase) { Tally() }
        tally.answered.incrementAndGet()
        if (ms >= bound) tally.overBound.incrementAndGet()
    }

    /** The guide's outcome of [step], a curve step that has ended. */
    fun guide(step: LoadPhase): Guide {
        val windowS = step.toSeconds - WINDOW_MARGIN_S - step.fromSeconds
        val tally = tallies[step.name]
        return Guide((step.ratePerSecond * windowS).roundToInt(), tally?.answered?.get() ?: 0, tally?.overBound?.get() ?: 0)
    }

    /** The ladder's steps this pass did not offer: the server rests in them ([offers]). */
    private val rested = ConcurrentHashMap.newKeySet<String>()

    /**
     * Whether the ladder's step [step] is offered: not once the two steps of its endpoint before it both failed, above the highest
     * it held. A step far past a server's limit leaves a backlog behind it, which the search's steps would otherwise measure
     * instead of the server (docs/JOURNAL.md, "The first run with the search"). So the ladder stops two steps past the limit, and
     * the server rests until the search. Two, not one: a server near its limit can fail a step and hold the next.
     *
     * Where no search of its endpoint follows (make bench), a failed step is one the server did not keep up with (more than 1%
     * of its requests unanswered), not one whose p99 crossed the bound: the steps past its p99 limit, up to where it stops
     * keeping up, are where its CPU is full and the capacity per CPU is read (labanalysis.curve.curve_verdicts.served_when_full), and
     * what a core serves there depends on what it is offered: stopped at its p99 limit, the platform server was measured at the
     * least it serves full (docs/JOURNAL.md, "Capacity per CPU: what a core served").
     */
    fun offers(step: LoadPhase): Boolean {
        val endpoint = step.endpoint ?: return true
        val searched = clock.timeline.phases.any { it.endpoint == endpoint && it.searched }
        val passed: (LoadPhase) -> Boolean = if (searched) { s -> guide(s).held } else { s -> guide(s).keptUp }
        awaitWire(step.fromSeconds - WINDOW_MARGIN_S)
        val ended = endedSteps(endpoint, step.fromSeconds).sortedBy { it.toSeconds }
        val highestHeld = ended.filter(passed).maxOfOrNull { it.ratePerSecond } ?: 0
        val last = ended.takeLast(LADDER_FAILED_IN_A_ROW)
        val stop = last.size == LADDER_FAILED_IN_A_ROW && last.all { !passed(it) && it.ratePerSecond > highestHeld }
        if (!stop) return true
        rested += step.name
        record(endpoint, step, 0, highestHeld.takeIf { it > 0 }, last.minOf { it.ratePerSecond })
        return false
    }

    /**
     * The rate for search slot [slot], now that the steps before it have ended: between the highest step of its endpoint the
     * guide says held and the lowest above it that did not. Null, and nothing is offered in the slot, where there is no such
     * pair: no step held (the ladder starts above the limit), none above the highest failed (the top held, or the limit is
     * the load generator's), or no whole rate lies between them.
     */
    fun rateFor(slot: LoadPhase): Int? {
        val endpoint = slot.endpoint ?: return null
        awaitWire(slot.fromSeconds - WINDOW_MARGIN_S)
        val (held, failed) = endedSteps(endpoint, slot.fromSeconds).partition { guide(it).held }
        val highestHeld = held.maxOfOrNull { it.ratePerSecond }
        val lowestFailed = failed.map { it.ratePerSecond }.filter { it > (highestHeld ?: Int.MAX_VALUE) }.minOrNull()
        val rate = if (highestHeld != null && lowestFailed != null) between(highestHeld, lowestFailed) else null
        record(endpoint, slot, rate ?: 0, highestHeld, lowestFailed)
        return rate
    }

    /** The steps of [endpoint] offered and ended by [loadSeconds], ladder and search alike. */
    private fun endedSteps(endpoint: String, loadSeconds: Int): List<LoadPhase> = clock.timeline.phases.filter {
        it.endpoint == endpoint && it.ratePerSecond > 0 && it.toSeconds <= loadSeconds && it.name !in rested &&
            it.name == LoadTimeline.curveStep(endpoint, it.ratePerSecond)
    }

    private fun record(endpoint: String, planned: LoadPhase, rate: Int, held: Int?, failed: Int?) {
        csv.row(clock.seconds(), clock.phase(), endpoint, planned.name, rate, held, failed)
        csv.flush()
    }

    /**
     * Waits, [WIRE_WAIT_MS] at most, until the wire's reader has passed [loadSeconds]: its answers up to then are in the tallies.
     * No longer: the step's attack waits with it, and one that starts a second late is cut short (VegetaCurve.LATE_START_MS).
     * Where the reader has not got there (the load's CPU full, or answers slower than the wait), the requests it has not seen
     * count as over the bound, as they are by then.
     */
    private fun awaitWire(loadSeconds: Double) {
        val until = System.nanoTime() + WIRE_WAIT_MS * 1_000_000
        while (latestLoadS < loadSeconds && System.nanoTime() < until) Thread.sleep(POLL_MS)
    }

    override fun close() = csv.close()

    companion object {
        /** The series of the search's choices (run-folder.json). */
        const val FILE = "curve-search.csv"

        /**
         * A step's guide counts the requests that arrived up to this long before its end: each has had as long to be answered,
         * five times the largest bound (/dashboard's 100 ms), so one unanswered by the step's end is over the bound anyway.
         */
        const val WINDOW_MARGIN_S = 0.5

        /**
         * How long a choice waits for the wire's reader to catch up, when it has not. With a second, the search's attacks after a
         * full load CPU started a second late and were cut by as much, and each such step counted an eighth of its requests as
         * dropped (docs/JOURNAL.md, "The first run with the search").
         */
        const val WIRE_WAIT_MS = 300L

        /** The ladder stops once this many of its steps in a row failed, above the highest held ([offers]). */
        const val LADDER_FAILED_IN_A_ROW = 2
        private const val POLL_MS = 20L

        /**
         * The rate halfway between [low] and [high] on a log scale (their geometric mean), rounded to as few significant figures
         * as keep it strictly between them, so the rates read as a person would pick them (7,500, not 7,483); null where no
         * whole rate lies between them.
         */
        fun between(low: Int, high: Int): Int? {
            require(0 < low && low < high) { "need 0 < low < high, not $low and $high" }
            val middle = sqrt(low.toDouble() * high)
            val digits = log10(middle).toInt() + 1
            for (figures in 2..digits) {
                val unit = 10.0.pow(digits - figures)
                val rounded = ((middle / unit).roundToInt() * unit).roundToInt()
                if (rounded in (low + 1) until high) return rounded
            }
            return middle.roundToInt().takeIf { it in (low + 1) until high }
        }
    }
}
