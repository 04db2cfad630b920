package lab.bench.load

import kotlinx.serialization.Serializable
import lab.bench.load.Profile.Companion.K6

/**
 * One phase of a profile's load, in seconds since k6 started: the socket steps, each
 * endpoint's warm-up and steady phase, the latency–throughput curve's steps, then, where the
 * profile has them, the sockets again, warm.
 *
 * The timeline is made once, here ([of]). The harness's clock (RunClock) names each second's
 * phase from it; bench.js builds its scenarios from it and tags each request with the phase
 * it was sent in; the analysis reads the phase names back (labanalysis.curve.curve). So a request,
 * the wire's record of it, and the CPU second it was served in all carry the same name.
 */
@Serializable
data class LoadPhase(
    val name: String,
    val fromSeconds: Int,
    val toSeconds: Int,
    /** The endpoint offered in this phase (`json`, `dashboard`), or none (the socket steps). */
    val endpoint: String? = null,
    val ratePerSecond: Int = 0,
    /** A warm-up: the rate rises from 1 a second to [ratePerSecond] over the phase, instead of holding it. */
    val ramp: Boolean = false,
    /**
     * Which load generator offers the phase's requests: k6, unless the profile gives the steady /json phase
     * ([Profile.jsonGenerator]) or the curve ([Profile.curveGenerator]) to vegeta.
     */
    val generator: String = K6,
    /**
     * A search slot ([LoadTimeline.searchStep]): a curve step whose rate is chosen while the pass runs ([CurveSearch]), 0
     * until then. The pass's clock names it for its rate once chosen ([PassTimeline.offer]).
     */
    val searched: Boolean = false,
)

object LoadTimeline {
    /**
     * A curve step's first seconds, its move to the new rate: a queue the step before left
     * drains, or one builds. Only the rest of the step is measured. The servers answer a
     * backlog of 2,000 (k6's cap on requests in flight, K6Plan.MAX_VUS) in well under this
     * when the rate drops below what they serve.
     */
    const val CURVE_SETTLE_SECONDS = 2

    /** The phase of socket step [step], counting from 1. */
    fun socketStep(step: Int) = "sockets-step-$step"

    /** What the name of each warm sockets' phase begins with (Profile.warmSockets). */
    private const val WARM_SOCKETS = "warm-sockets-"

    /**
     * The phase after the load where k6 closes the sockets it held, each on the echo of one message, and the server comes to
     * rest again: its end is the warm sockets' at-rest snapshot.
     */
    const val WARM_SOCKETS_REST = "${WARM_SOCKETS}rest"

    /** The phase of warm socket step [step], counting from 1: the sockets opened again after the load, as [socketStep]'s were. */
    fun warmSocketStep(step: Int) = "${WARM_SOCKETS}step-$step"

    /** Whether [phase] is the warm sockets' rest or one of their steps: k6's count of sockets opened holds the cold ones too. */
    fun isWarmSockets(phase: String): Boolean = phase.startsWith(WARM_SOCKETS)

    /** A curve step's settling phase: the move to [ratePerSecond]. */
    fun curveSettle(endpoint: String, ratePerSecond: Int) = "$endpoint-to-$ratePerSecond"

    /** A curve step's measured phase: [endpoint] held at [ratePerSecond]. */
    fun curveStep(endpoint: String, ratePerSecond: Int) = "$endpoint-at-$ratePerSecond"

    /** Search slot [slot] of [endpoint]'s curve (counting from 1), before its rate is chosen: its measured phase. */
    fun searchStep(endpoint: String, slot: Int) = "$endpoint-search-$slot"

    /** The slot number of [phase] if it is a search slot's measured phase whose rate is not yet chosen; null otherwise. */
    fun searchSlot(phase: LoadPhase): Int? =
        phase.endpoint?.takeIf {
            phase.searched
        }?.let { phase.name.removePrefix("$it-search-").takeIf { n -> n != phase.name }?.toIntOrNull() }

    /** Search slot [slot]'s settling phase, before its rate is chosen. */
    fun searchSettle(endpoint: String, slot: Int) = "$endpoint-to-search-$slot"

    /** The full step's settling phase ([ClosedLoopStep]): wrk's closed loop filling its connections. */
    fun fullSettle(endpoint: String) = "$endpoint-to-full"

    /** The full step's measured phase: [endpoint] offered as fast as the server answers, by a closed loop. */
    fun fullStep(endpoint: String) = "$endpoint-full"

    /** Whether [phase] is a full step's measured phase. */
    fun isFullStep(phase: LoadPhase): Boolean = phase.endpoint?.let { phase.name == fullStep(it) } == true

    /** Every phase of [profile]'s load, in order, end to end; phases of no length are left out. */
    fun of(profile: Profile): List<LoadPhase> = buildList {
        var at = 0
        fun phase(
            name: String,
            seconds: Int,
            endpoint: String? = null,
            rate: Int = 0,
            ramp: Boolean = false,
            generator: String = K6,
            searched: Boolean = false,
        ) {
            if (seconds > 0) add(LoadPhase(name, at, at + seconds, endpoint, rate, ramp, generator, searched))
            at += seconds
        }
        for (step in 1..profile.socketSteps) phase(socketStep(step), profile.stepHoldSeconds)
        phase("json-warmup", profile.jsonWarmupSeconds, "json", profile.jsonRatePerSecond, ramp = true)
        phase("json", profile.jsonSeconds, "json", profile.jsonRatePerSecond, generator = profile.jsonGenerator)
        phase("dashboard-warmup", profile.dashboardWarmupSeconds, "dashboard", profile.dashboardRatePerSecond, ramp = true)
        phase("dashboard", profile.dashboardSeconds, "dashboard", profile.dashboardRatePerSecond)
        val fullSeconds = mapOf("json" to profile.jsonFullStepSeconds)
        for ((endpoint, rates) in listOf("json" to profile.jsonCurveRatesPerSecond, "dashboard" to profile.dashboardCurveRatesPerSecond)) {
            for ((index, rate) in rates.withIndex()) {
                val by = profile.curveGenerator
                val settle = if (index == 0) profile.curveFirstSettleSeconds else CURVE_SETTLE_SECONDS
                phase(curveSettle(endpoint, rate), settle, endpoint, rate, generator = by)
                phase(curveStep(endpoint, rate), profile.curveStepSeconds - CURVE_SETTLE_SECONDS, endpoint, rate, generator = by)
            }
            // The search's slots follow the endpoint's ladder, the first settling as long as a first step: the ladder ends past
            // every server's limit, and what its top step left behind drains before the search is measured.
            if (rates.isEmpty()) continue
            for (slot in 1..profile.curveSearchSteps) {
                val by = profile.curveGenerator
                val settle = if (slot == 1) profile.curveFirstSettleSeconds else CURVE_SETTLE_SECONDS
                phase(searchSettle(endpoint, slot), settle, endpoint, generator = by, searched = true)
                val measured = profile.curveStepSeconds - CURVE_SETTLE_SECONDS
                phase(searchStep(endpoint, slot), measured, endpoint, generator = by, searched = true)
            }
            // The full step follows the ladder and its search, past every server's limit: the closed loop's backlog is its
            // connections, which the next step's settling drains.
            val full = fullSeconds[endpoint] ?: 0
            if (full > 0) {
                phase(fullSettle(endpoint), CURVE_SETTLE_SECONDS, endpoint, generator = Profile.WRK)
                phase(fullStep(endpoint), full - CURVE_SETTLE_SECONDS, endpoint, generator = Profile.WRK)
            }
        }
        // The sockets again, on a JVM whose request paths the phases above compiled: the same steps, after a step's hold at rest.
        if (profile.warmSockets) {
            phase(WARM_SOCKETS_REST, profile.stepHoldSeconds)
            for (step in 1..profile.socketSteps) phase(warmSocketStep(step), profile.stepHoldSeconds)
        }
    }
}
