package lab.bench

import kotlinx.serialization.Serializable
import lab.bench.load.Profile
import lab.support.ServerEntry
import java.io.File

/**
 * Finds the /json rate a run uses: the highest, up to the profile's, that every server
 * sustains with zero dropped iterations while holding the profile's idle sockets. All three
 * servers then run at that one rate, because latencies at different rates do not compare.
 *
 * Each probe is a short run of its own ([Profile.probe]) on a freshly started server, kept
 * under `calibration/` in the run folder. A server that does not sustain a rate is probed
 * again at a lower one ([next]); the servers after it start from the lowered rate, since a
 * rate one server could not sustain is no longer the run's.
 *
 * The search goes no lower than a quarter of the profile's rate (the floor). A server that
 * drops iterations even there is named in [Result.unsustained] and does not drag the run's
 * rate down: the others are compared at a rate worth comparing, and its dropped iterations
 * in the run are the finding. (On this lab's 2-core machines the platform-thread server with
 * 15,000 threads dropped iterations at a fraction of the rate as at the whole, its full heap
 * stalling its allocations: not the rate held it back; docs/JOURNAL.md, "A local run".) With at
 * most [maxProbes] probes, the search always ends.
 */
class RateCalibration(
    private val setup: RunSetup,
    private val dir: File,
    private val progress: Progress,
    private val maxProbes: Int,
) {
    @Serializable
    data class Probe(
        val server: String,
        val ratePerSecond: Int,
        val sustained: Boolean,
        val droppedIterations: Long?,
        /** /json responses per second over the probe: what the server served of the rate. */
        val achievedPerSecond: Double?,
        val jsonP99Ms: Double?,
        val failure: String? = null,
    )

    /** The outcome: [ratePerSecond] is what the run uses, which every server but the [unsustained] ones sustained. */
    @Serializable
    data class Result(
        val targetPerSecond: Int,
        val floorPerSecond: Int,
        val ratePerSecond: Int,
        val unsustained: List<String>,
        val probes: List<Probe>,
    )

    fun run(servers: List<ServerEntry>): Result {
        val target = setup.profile.jsonRatePerSecond
        val floor = floorOf(target)
        var rate = target
        val probes = mutableListOf<Probe>()
        val unsustained = mutableListOf<String>()
        for (server in servers) {
            val before = rate
            while (true) {
                val probe = probe(server, rate)
                probes += probe
                progress.say(
                    "calibration: ${server.name} at $rate/s: " + when {
                        probe.failure != null -> "the server failed (${probe.failure}); the run will show it"
                        probe.sustained -> "sustained, p99 ${"%.1f".format(java.util.Locale.ROOT, probe.jsonP99Ms ?: Double.NaN)} ms"
                        else -> "${probe.droppedIterations} dropped iterations"
                    },
                )
                // A server that fails outright says nothing about the rate; the measured run records it.
                if (probe.sustained || probe.failure != null) break
                if (rate <= floor || probes.size >= maxProbes) {
                    unsustained += server.name
                    progress.say(
                        "calibration: ${server.name} sustained none of the rates tried, down to $rate/s; the run keeps $before/s for the others",
                    )
                    rate = before
                    break
                }
                rate = maxOf(floor, next(rate, probe.achievedPerSecond))
            }
        }
        return Result(target, floor, rate, unsustained, probes)
    }

    private fun probe(server: ServerEntry, rate: Int): Probe {
        val outcome = ServerRun(
            server,
            setup.copy(profile = setup.profile.probe(rate)),
            File(dir, "${server.name}-${rate}rps"),
            progress,
            label = "${server.name}@$rate",
        ).run()
        return Probe(
            server = server.name,
            ratePerSecond = rate,
            sustained = outcome.ok && outcome.jsonDroppedIterations == 0L && outcome.failedChecks == 0L,
            droppedIterations = outcome.jsonDroppedIterations,
            achievedPerSecond = outcome.jsonPerSecond,
            jsonP99Ms = outcome.jsonP99Ms,
            failure = outcome.reason,
        )
    }

    companion object {
        const val MIN_RATE_PER_SECOND = 50

        /** The lowest rate the search tries: a quarter of the profile's, and at least [MIN_RATE_PER_SECOND]. */
        fun floorOf(target: Int): Int = maxOf(MIN_RATE_PER_SECOND, target / 4 / 50 * 50)

        /**
         * The rate to probe after [rate] was not sustained: a fifth lower, or 90% of what the
         * server achieved if that is lower still (a server far past its capacity says where
         * its capacity is, and the search need not walk down to it). In steps of 50 requests
         * a second, and never below [MIN_RATE_PER_SECOND].
         */
        fun next(rate: Int, achievedPerSecond: Double?): Int {
            val fromAchieved = achievedPerSecond?.let { (it * 0.9).toInt() } ?: rate
            return maxOf(MIN_RATE_PER_SECOND, minOf(rate * 4 / 5, fromAchieved) / 50 * 50)
        }
    }
}
