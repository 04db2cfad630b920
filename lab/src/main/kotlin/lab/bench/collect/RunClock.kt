package lab.bench.collect

import lab.bench.load.LoadTimeline
import lab.bench.load.PassTimeline
import lab.bench.load.Profile
import java.time.Duration
import java.time.Instant

/**
 * One time axis for every series of a server: seconds since its JVM was started. The phase
 * of the profile's timeline at a time counts from [markLoadStart] (when k6 starts), and
 * everything before that is `startup`.
 */
class RunClock(profile: Profile) {
    private val startNs = System.nanoTime()
    private val start = Instant.now()

    @Volatile private var loadStartS: Double? = null

    /** The pass's phases: the profile's, each search slot named for its rate once chosen. */
    val timeline = PassTimeline(profile.timeline)

    fun seconds(): Double = Math.round((System.nanoTime() - startNs) / 1e6) / 1e3

    /** The same axis for a wall-clock time, such as a JFR event's start. */
    fun secondsAt(instant: Instant): Double = Duration.between(start, instant).toMillis() / 1e3

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
        /** The phase of socket step [step], counting from 1. */
        fun socketStep(step: Int) = LoadTimeline.socketStep(step)
    }
}
