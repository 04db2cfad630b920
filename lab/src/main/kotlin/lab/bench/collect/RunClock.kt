package lab.bench.collect

import kotlinx.serialization.Serializable
import lab.bench.load.PassTimeline
import lab.bench.load.Profile
import java.time.Duration
import java.time.Instant
import kotlin.math.abs

/**
 * One time axis for every series of a server: seconds since its JVM was started, by the monotonic clock. The phase
 * of the profile's timeline at a time counts from [markLoadStart] (when k6 starts), and
 * everything before that is `startup`.
 *
 * What others stamp by the wall clock (vegeta's requests, the wire's packets) comes onto the axis through [secondsAt]. The wall
 * clock can move against the monotonic one mid-pass, and every stamp taken after the move would land that much off on the axis:
 * in the phase after its own, and the curve's search would read a step the server held as failed (docs/JOURNAL.md, "The wall
 * clock moved in a pass"). So every reading of the axis also reads the wall clock, notes where it moved ([wallClockSteps]), and
 * [secondsAt] undoes each move for what was stamped after it.
 */
class RunClock(
    profile: Profile,
    private val wallNow: () -> Instant = Instant::now,
    private val monotonicNs: () -> Long = System::nanoTime,
) {
    private val startNs = monotonicNs()
    private val start = wallNow()

    /**
     * Where the axis's 0 lies on the wall clock, in epoch ns, from [sinceSeconds] on the axis: the first from the start, and one
     * for each move of the wall clock, oldest first.
     */
    private class Anchor(val sinceSeconds: Double, val zeroEpochNs: Long)

    @Volatile private var anchors = listOf(Anchor(0.0, epochNs(start)))

    @Volatile private var loadStartS: Double? = null

    /** The pass's phases: the profile's, each search slot named for its rate once chosen. */
    val timeline = PassTimeline(profile.timeline)

    fun seconds(): Double = Math.round(readClocks() / 1e6) / 1e3

    /**
     * The same axis for a wall-clock time taken when the event happened, such as a packet's capture time: through the wall
     * clock's place when it was taken. A stamp on the axis before a move's place, by the anchor the move set, was taken before
     * the move. A move back repeats wall-clock times, and a stamp from the seconds it repeats is put after it.
     */
    fun secondsAt(instant: Instant): Double {
        // A reader of live stamps (the wire's) may be the first to read the clock since it moved.
        readClocks()
        val stampNs = epochNs(instant)
        val anchor = anchors.lastOrNull { (stampNs - it.zeroEpochNs) / 1e9 >= it.sinceSeconds } ?: anchors.first()
        return Math.round((stampNs - anchor.zeroEpochNs) / 1e6) / 1e3
    }

    /**
     * The axis for a time the pass's JFR recording stamped: JFR times its events by the CPU's ticks from the wall clock's reading
     * when its recording started, so a move of the wall clock since does not move them.
     */
    fun secondsAtJfr(instant: Instant): Double = Duration.between(start, instant).toMillis() / 1e3

    /** Each move of the wall clock against the axis so far, where [seconds] first saw it. */
    val wallClockSteps: List<WallClockStep>
        get() = anchors.zipWithNext { before, after ->
            WallClockStep(after.sinceSeconds, (after.zeroEpochNs - before.zeroEpochNs) / 1_000_000)
        }

    /** Nanoseconds on the axis now, the wall clock read with it, and a move of the wall clock noted as an anchor. */
    private fun readClocks(): Long {
        val axisNs = monotonicNs() - startNs
        val zero = epochNs(wallNow()) - axisNs
        if (moved(zero)) {
            synchronized(this) {
                if (moved(zero)) anchors = anchors + Anchor(Math.round(axisNs / 1e6) / 1e3, zero)
            }
        }
        return axisNs
    }

    private fun moved(zeroEpochNs: Long) = abs(zeroEpochNs - anchors.last().zeroEpochNs) >= WALL_STEP_MS * 1_000_000

    fun markLoadStart() {
        loadStartS = seconds()
    }

    /** Seconds of load so far: where k6 is in the profile's timeline. */
    fun loadSeconds(at: Double = seconds()): Double = loadStartS?.let { at - it } ?: 0.0

    fun phase(at: Double = seconds()): String {
        val loadStart = loadStartS ?: return "startup"
        val load = at - loadStart
        if (load < 0) return "startup"
        return timeline.phases.firstOrNull { load < it.toSeconds }?.takeIf { load >= it.fromSeconds }?.name ?: "closing"
    }

    companion object {
        /**
         * How far the wall clock must move against the monotonic one, at once, to count as a move: a time service slews it by
         * half a millisecond a second at most, and the two clocks are read a few microseconds apart.
         */
        const val WALL_STEP_MS = 100L

        private fun epochNs(instant: Instant): Long = instant.epochSecond * 1_000_000_000 + instant.nano
    }
}

/** The wall clock moved [movedMs] against the pass's monotonic clock (forward where positive), first seen at [atSeconds] on it. */
@Serializable
data class WallClockStep(val atSeconds: Double, val movedMs: Long)
