package lab.bench

import kotlinx.serialization.Serializable

/**
 * Everything `loadtests/bench.js` reads from `LAB_PLAN`: the profile after the preflight,
 * plus where to send the load and how many VUs to spread it over.
 */
@Serializable
data class K6Plan(
    val baseUrl: String,
    val idleSockets: Int,
    val socketVus: Int,
    val socketSteps: Int,
    val stepHoldSeconds: Int,
    val pingIntervalSeconds: Int,
    val jsonRatePerSecond: Int,
    val jsonWarmupSeconds: Int,
    val jsonSeconds: Int,
    val jsonVus: Int,
    val dashboardRatePerSecond: Int,
    val dashboardSeconds: Int,
    val dashboardVus: Int,
) {
    companion object {
        /** One VU holds this many sockets: k6/websockets serves them all from its event loop. */
        const val SOCKETS_PER_VU = 250

        /**
         * An open-model scenario starts each request on a free VU, and drops it when there is
         * none, so the VU count is a cap on requests in flight. With a second's worth of
         * requests in VUs, all made before the run starts (k6 making more mid-run costs CPU
         * and drops iterations meanwhile), a stall of up to a second shows where an open model
         * puts it, in the latency (p99.9, max); only a longer backlog, a server that cannot
         * keep up, drops iterations. (At 500 ms, a platform-thread server's 0.5-0.8 s stalls
         * with 15,000 threads dropped iterations at rates where it otherwise kept up.)
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
            idleSockets = idleSockets,
            socketVus = maxOf(1, (idleSockets + SOCKETS_PER_VU - 1) / SOCKETS_PER_VU),
            socketSteps = profile.socketSteps,
            stepHoldSeconds = profile.stepHoldSeconds,
            pingIntervalSeconds = profile.pingIntervalSeconds,
            jsonRatePerSecond = profile.jsonRatePerSecond,
            jsonWarmupSeconds = profile.jsonWarmupSeconds,
            jsonSeconds = profile.jsonSeconds,
            jsonVus = vusFor(profile.jsonRatePerSecond),
            dashboardRatePerSecond = profile.dashboardRatePerSecond,
            dashboardSeconds = profile.dashboardSeconds,
            dashboardVus = vusFor(profile.dashboardRatePerSecond),
        )
    }
}
