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
    val jsonSeconds: Int,
    val jsonVus: Int,
    val dashboardRatePerSecond: Int,
    val dashboardSeconds: Int,
    val dashboardVus: Int,
) {
    companion object {
        /** One VU holds this many sockets: k6/websockets serves them all from its event loop. */
        const val SOCKETS_PER_VU = 250

        fun of(profile: Profile, idleSockets: Int, baseUrl: String) = K6Plan(
            baseUrl = baseUrl,
            idleSockets = idleSockets,
            socketVus = maxOf(1, (idleSockets + SOCKETS_PER_VU - 1) / SOCKETS_PER_VU),
            socketSteps = profile.socketSteps,
            stepHoldSeconds = profile.stepHoldSeconds,
            pingIntervalSeconds = profile.pingIntervalSeconds,
            jsonRatePerSecond = profile.jsonRatePerSecond,
            jsonSeconds = profile.jsonSeconds,
            // Enough VUs for 100 ms of latency at the full rate; k6 may add up to four times more.
            jsonVus = maxOf(10, profile.jsonRatePerSecond / 10),
            dashboardRatePerSecond = profile.dashboardRatePerSecond,
            dashboardSeconds = profile.dashboardSeconds,
            dashboardVus = maxOf(10, profile.dashboardRatePerSecond / 5),
        )
    }
}
