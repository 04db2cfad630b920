package lab.bench.load

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import lab.handlers.PinTrap
import java.io.File

/**
 * Everything `loadtests/bench.js` reads from `LAB_PLAN`: the profile, plus what the harness
 * decides for this host: where to send the load, the idle sockets after the preflight (which
 * may have scaled the profile's down), and how many VUs to spread each scenario over.
 */
@Serializable
data class K6Plan(
    val baseUrl: String,
    val profile: Profile,
    val idleSockets: Int,
    val socketVus: Int,
    val jsonVus: Int,
    val dashboardVus: Int,
    val pinVus: Int,
    /** The traps `/pin/{trap}` knows, so the script names none of its own. */
    val pinTraps: List<String>,
    /** The profile's phases (LoadTimeline), which the script's scenarios and request tags follow. */
    val timeline: List<LoadPhase>,
) {
    /** `LAB_PLAN`'s text: every field, those left at their defaults too, since the script has no defaults of its own. */
    fun toJson(): String = everyField.encodeToString(serializer(), this)

    /** The plan, where k6's other files are ([FILE]): what it was asked to do, and to which address. */
    fun writeIn(dir: File): File = File(dir, FILE).also { it.writeText(toJson()) }

    companion object {
        const val FILE = "k6-plan.json"

        private val everyField = Json { encodeDefaults = true }

        /** One VU holds this many sockets: k6/websockets serves them all from its event loop. */
        const val SOCKETS_PER_VU = 250

        /**
         * An open-model scenario starts each request on a free VU, and drops it when there is
         * none, so the VU count is a cap on requests in flight. With a second's worth of
         * requests in VUs, all made before the run starts (k6 making more mid-run costs CPU
         * and drops iterations meanwhile), a stall of up to a second shows where an open model
         * puts it, in the latency (p99.9, max); only a longer backlog, a server that cannot
         * keep up, drops iterations. (At half a second, the platform-thread server's stalls with
         * 15,000 threads dropped iterations at rates where it otherwise kept up: docs/JOURNAL.md,
         * "Figures that were in the harness's comments".)
         */
        const val STALL_TOLERANCE_MS = 1_000

        /**
         * At most this many VUs per scenario: each is a JavaScript runtime, and k6 shares the
         * host's cores with the server. A rate beyond it (the jfr-overhead profile offers more
         * than the host serves, to measure throughput) is then held to this many in flight.
         */
        const val MAX_VUS = 2_000

        fun vusFor(ratePerSecond: Int): Int = (ratePerSecond * STALL_TOLERANCE_MS / 1000).coerceIn(10, MAX_VUS)

        fun of(profile: Profile, idleSockets: Int, baseUrl: String) = K6Plan(
            baseUrl = baseUrl,
            profile = profile,
            idleSockets = idleSockets,
            socketVus = maxOf(1, (idleSockets + SOCKETS_PER_VU - 1) / SOCKETS_PER_VU),
            // One scenario per endpoint runs its warm-up, steady phase and curve, on the same VUs and connections.
            jsonVus = vusFor(highestRate(profile, "json")),
            dashboardVus = vusFor(highestRate(profile, "dashboard")),
            pinVus = vusFor(profile.pinTrapsPerSecond),
            pinTraps = PinTrap.entries.map { it.slug },
            timeline = profile.timeline,
        )

        private fun highestRate(profile: Profile, endpoint: String): Int =
            profile.timeline.filter { it.endpoint == endpoint && it.generator == Profile.K6 }.maxOfOrNull { it.ratePerSecond } ?: 0
    }
}
