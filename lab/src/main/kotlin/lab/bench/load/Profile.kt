package lab.bench.load

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.decodeFromStream
import lab.experiment.BadInput
import lab.floor.tasks.Warmth
import java.io.File
import kotlin.math.ceil

/**
 * One load profile, as declared in `loadtests/profiles/<name>.json`: the only place its
 * numbers live. [load] checks every field, so a typo fails before any server starts.
 */
@Serializable
data class Profile(
    val description: String,
    val idleSockets: Int,
    val socketSteps: Int,
    val stepHoldSeconds: Int,
    val pingIntervalSeconds: Int,
    /**
     * The /json rate to aim for. With [calibrationSeconds] above 0 it is the most the run
     * tries: the harness first finds the highest rate up to it that every server sustains
     * with zero dropped iterations, and the run uses that.
     */
    val jsonRatePerSecond: Int,
    /** A ramp from 1 request a second up to the rate before the /json phase, so the JIT has compiled the path. */
    val jsonWarmupSeconds: Int,
    val jsonSeconds: Int,
    /**
     * Which load generator offers the steady /json phase: [K6], as its warm-up, or [VEGETA], at a fraction of k6's CPU a request,
     * so that the load's CPU offers the rate with room to spare while k6 holds the sockets (VegetaCurve). The warm-up stays
     * k6's: a ramp, which vegeta's constant-rate attacks do not offer.
     */
    val jsonGenerator: String = K6,
    /** How long each calibration probe holds a rate; 0 takes [jsonRatePerSecond] as it is. */
    val calibrationSeconds: Int,
    val dashboardRatePerSecond: Int,
    /** A ramp from 1 request a second up to the dashboard rate before its phase, as [jsonWarmupSeconds] is for /json. */
    val dashboardWarmupSeconds: Int = 0,
    val dashboardSeconds: Int,
    val heapMb: Int,
    /** Run each server a second time without the JFR stream, to measure what the stream costs. */
    val compareWithoutJfr: Boolean = false,
    /** How many times each server runs, one after the other; medians over repeats say how noisy a figure is. */
    val repeats: Int = 1,
    /**
     * Requests a second to the handler core's pinning traps (`/pin/{trap}`, each trap in turn)
     * during the steady /json phase, so a run shows pinning where it happens; 0 leaves them out.
     * They are not in /json's figures, but they do share the server with them.
     */
    val pinTrapsPerSecond: Int = 0,
    /**
     * How many of the host's CPUs the server gets to itself, with k6, the stub and the harness
     * on the rest (lab.bench.host.CpuSplit); 0 shares every CPU. Where the load runs beside the
     * server, a load generator on the server's cores takes CPU from it, and its own stalls show
     * up as the server's latency.
     */
    val serverCpus: Int = 0,
    /** Why [jsonRatePerSecond] is what it is; the manifest records it beside the rate the run used. */
    val jsonRateReason: String = "",
    /** Why [dashboardRatePerSecond] is what it is, as [jsonRateReason] is for /json. */
    val dashboardRateReason: String = "",
    /**
     * The latency–throughput curve's /json rates, rising, each held [curveStepSeconds] after
     * the dashboard phase (LoadTimeline); empty leaves the curve out. From well under what the
     * servers serve to past it, so each server's highest sustained rate is inside the curve.
     */
    val jsonCurveRatesPerSecond: List<Int> = emptyList(),
    /** The curve's /dashboard rates, after /json's, as [jsonCurveRatesPerSecond]. */
    val dashboardCurveRatesPerSecond: List<Int> = emptyList(),
    /** How long each curve step holds its rate, its settling seconds (LoadTimeline.CURVE_SETTLE_SECONDS) included. */
    val curveStepSeconds: Int = 0,
    /**
     * How long the first step of each endpoint's curve settles (LoadTimeline.CURVE_SETTLE_SECONDS unless the profile says):
     * longer where the phase before leaves a server to recover, as the /json curve does past every server's limit.
     */
    val curveFirstSettleSeconds: Int = LoadTimeline.CURVE_SETTLE_SECONDS,
    /**
     * A /json curve step is sustained when nothing was dropped or failed and the p99 on the wire
     * (the server's own, without k6's delays) stayed under this bound.
     */
    val jsonCurveP99BoundMs: Double = 0.0,
    /** The same bound for a /dashboard step, whose every request waits on the stub. */
    val dashboardCurveP99BoundMs: Double = 0.0,
    /**
     * Which load generator offers the curve's steps: [K6], as every other phase, or [VEGETA]
     * (VegetaCurve), an open-model generator that costs the load's CPU a fraction of what k6
     * does a request, for rates k6 cannot offer on the load's CPUs (docs/under-load.md). k6
     * holds the idle sockets either way.
     */
    val curveGenerator: String = K6,
    /**
     * Where vegeta offers the curve, the keep-alive connections its steps go on: all opened as the pass's load starts, the
     * same for every step and server, and no more (VegetaCurve). How many connections carry the load moves what a budgeted
     * server answers, so the count is part of the method. It must be at least each curve's top rate times its p99 bound
     * ([poolProblems]): a request that waits for a connection waits in vegeta, where the wire does not see it, but with all
     * of them in flight the wire's mean time is their count over what the server answers (Little's law), over the bound at
     * any rate of the curve, so a full pool fails the step on the wire.
     */
    val curveConnections: Int = DEFAULT_CURVE_CONNECTIONS,
    /** Why [curveConnections] is what it is; the manifest records it with the profile. */
    val curveConnectionsReason: String = "",
    /**
     * How many steps of each endpoint's curve, after its ladder, search for the server's limit between the highest step it held
     * and the step above it, halving the gap (on a log scale) each time, as RFC 2544's throughput test searches for the highest
     * rate without loss ([CurveSearch]). The ladder's steps are too far apart to repeat a limit within 15%; three halvings take
     * a third apart to 4%. The rates are chosen while the pass runs, so the curve's generator must be [VEGETA]; 0 searches none.
     */
    val curveSearchSteps: Int = 0,
    /**
     * How long the /json curve's full step holds, its settling seconds (LoadTimeline.CURVE_SETTLE_SECONDS) included: after the
     * ladder, wrk's closed loop on the curve's connections offers /json as fast as the server answers it ([ClosedLoopStep]), so
     * that what a core serves with its CPU full is read where the load's CPU is not full too. 0 leaves it out.
     */
    val jsonFullStepSeconds: Int = 0,
    /** Why [jsonFullStepSeconds] is what it is; the manifest records it with the profile. */
    val jsonFullStepReason: String = "",
    /**
     * The CPU the server may use in the curve's steps, in cores (lab.bench.host.CpuBudget, a cgroup v1 quota imposed when the
     * curve starts), so that its limit lies where the load's CPUs reach it; 0 gives it its [serverCpus] whole.
     */
    val curveServerCpuBudget: Double = 0.0,
    /** Why [curveServerCpuBudget] is what it is; the manifest records it with the profile. */
    val curveServerCpuBudgetReason: String = "",
    /**
     * After the load, the idle sockets again, warm: k6 sends one message on each socket it held and closes it on the echo, so
     * that the echo path is compiled as the request paths are, and then opens as many in the same steps ([LoadTimeline]). The
     * pass's memory is taken apart at rest and at each step's end, as it is cold, on a JVM whose code is compiled: what a socket
     * costs a server that took its connections after warming up. False opens them once, cold, before any load.
     */
    val warmSockets: Boolean = false,
    /**
     * Which sockets the figures per socket of the verdict and the headline are, by [Warmth]'s slug: cold, opened before any
     * load, or warm ([warmSockets]). The report shows both where the profile has both.
     */
    val socketsHeadline: String = Warmth.COLD.slug,
    /** Why [socketsHeadline] is what it is; the manifest records it with the profile. */
    val socketsHeadlineReason: String = "",
) {
    /** When the steady /json phase starts, in seconds of load: after the socket steps and the warm-up. */
    val jsonStartSeconds: Int get() = socketSteps * stepHoldSeconds + jsonWarmupSeconds

    /** When the steady /dashboard phase starts, in seconds of load: after the /json phase and the dashboard's warm-up. */
    val dashboardStartSeconds: Int get() = jsonStartSeconds + jsonSeconds + dashboardWarmupSeconds

    /** When the curve's first step starts, in seconds of load: after the steady /dashboard phase. */
    val curveStartSeconds: Int get() = dashboardStartSeconds + dashboardSeconds

    /** Every phase of the load, in order (LoadTimeline). */
    val timeline: List<LoadPhase> get() = LoadTimeline.of(this)

    /** Whether any phase is vegeta's (the steady /json phase, or the curve's steps): the run needs vegeta-steps. */
    val offersVegeta: Boolean get() = timeline.any { it.generator == VEGETA }

    /** Whether a full step is offered (wrk's closed loop): the run needs wrk. */
    val offersWrk: Boolean get() = timeline.any { it.generator == WRK }

    /** How long k6 drives one server: the socket steps, the /json warm-up and phase, the dashboard's, the curve, then the warm sockets. */
    val durationSeconds: Int get() = timeline.maxOfOrNull { it.toSeconds } ?: 0

    /** When the last phase that offers requests ends, in seconds of load: the curve's end, where the profile has a curve. */
    val requestsEndSeconds: Int get() = timeline.filter { it.endpoint != null }.maxOfOrNull { it.toSeconds } ?: 0

    /**
     * One calibration probe at [ratePerSecond]: every socket opened in one step, then a
     * warm-up and [calibrationSeconds] of /json with the sockets open, and no dashboard.
     */
    fun probe(ratePerSecond: Int): Profile = copy(
        socketSteps = 1,
        stepHoldSeconds = PROBE_SOCKET_HOLD_SECONDS,
        jsonWarmupSeconds = minOf(jsonWarmupSeconds, PROBE_WARMUP_SECONDS),
        jsonRatePerSecond = ratePerSecond,
        jsonSeconds = calibrationSeconds,
        calibrationSeconds = 0,
        dashboardRatePerSecond = 0,
        dashboardWarmupSeconds = 0,
        dashboardSeconds = 0,
        compareWithoutJfr = false,
        pinTrapsPerSecond = 0,
        jsonCurveRatesPerSecond = emptyList(),
        dashboardCurveRatesPerSecond = emptyList(),
        curveStepSeconds = 0,
        curveSearchSteps = 0,
        jsonFullStepSeconds = 0,
        curveServerCpuBudget = 0.0,
        warmSockets = false,
        socketsHeadline = Warmth.COLD.slug,
    )

    fun problems(): List<String> = buildList {
        if (idleSockets < 0) add("idleSockets must be 0 or more")
        if (socketSteps < 1) add("socketSteps must be at least 1")
        if (stepHoldSeconds < 1) add("stepHoldSeconds must be at least 1")
        if (pingIntervalSeconds < 1) add("pingIntervalSeconds must be at least 1")
        if (jsonRatePerSecond < 1 || jsonSeconds < 1) add("jsonRatePerSecond and jsonSeconds must be at least 1")
        if (jsonWarmupSeconds < 0 || calibrationSeconds < 0) add("jsonWarmupSeconds and calibrationSeconds must be 0 or more")
        if (dashboardRatePerSecond < 0 || dashboardSeconds < 0 || dashboardWarmupSeconds < 0) {
            add("dashboardRatePerSecond, dashboardWarmupSeconds and dashboardSeconds must be 0 or more")
        }
        if (dashboardWarmupSeconds > 0 &&
            dashboardSeconds == 0
        ) {
            add("dashboardWarmupSeconds needs a dashboard phase to warm up for (dashboardSeconds above 0)")
        }
        if (jsonGenerator !in CURVE_GENERATORS) {
            add("jsonGenerator must be one of ${CURVE_GENERATORS.joinToString()}, not \"$jsonGenerator\"")
        }
        if (jsonGenerator == VEGETA && calibrationSeconds > 0) {
            add("calibrationSeconds needs jsonGenerator \"$K6\": the calibration reads its probes' dropped iterations from k6")
        }
        if (serverCpus < 0) add("serverCpus must be 0 (share every CPU) or more")
        if (pinTrapsPerSecond < 0) add("pinTrapsPerSecond must be 0 or more")
        if (heapMb < 64) add("heapMb must be at least 64")
        if (repeats !in 1..MAX_REPEATS) add("repeats must be between 1 and $MAX_REPEATS")
        if (socketsHeadline !in Warmth.slugs) add("socketsHeadline must be one of ${Warmth.slugs.joinToString()}, not \"$socketsHeadline\"")
        if (socketsHeadline == Warmth.WARM.slug && !warmSockets) {
            add("socketsHeadline \"${Warmth.WARM.slug}\" needs warmSockets true: no warm sockets are opened")
        }
        addAll(curveProblems())
    }

    private fun curveProblems(): List<String> = buildList {
        for ((name, rates, bound) in listOf(
            Triple("jsonCurve", jsonCurveRatesPerSecond, jsonCurveP99BoundMs),
            Triple("dashboardCurve", dashboardCurveRatesPerSecond, dashboardCurveP99BoundMs),
        )) {
            if (rates.isEmpty()) continue
            if (rates.any { it < 1 } || rates.zipWithNext().any { (a, b) -> b <= a }) add("${name}RatesPerSecond must rise, from 1 or more")
            if (!(bound > 0)) add("${name}P99BoundMs must be above 0 when ${name}RatesPerSecond has rates")
        }
        val hasCurve = jsonCurveRatesPerSecond.isNotEmpty() || dashboardCurveRatesPerSecond.isNotEmpty()
        // k6 stamps its samples with whole seconds, so a step measured for L seconds holds L - 1 whole ones: 2 measure one.
        val shortest = LoadTimeline.CURVE_SETTLE_SECONDS + 2
        if (hasCurve && curveStepSeconds < shortest) {
            add(
                "curveStepSeconds must be at least $shortest: ${LoadTimeline.CURVE_SETTLE_SECONDS} s to settle, and 2 to hold a whole second of k6's samples",
            )
        }
        if (curveGenerator !in CURVE_GENERATORS) {
            add("curveGenerator must be one of ${CURVE_GENERATORS.joinToString()}, not \"$curveGenerator\"")
        }
        if (curveConnections !in 1..MAX_CURVE_CONNECTIONS) add("curveConnections must be between 1 and $MAX_CURVE_CONNECTIONS")
        if (curveGenerator == VEGETA) addAll(poolProblems())
        if (curveSearchSteps !in 0..MAX_SEARCH_STEPS) add("curveSearchSteps must be between 0 and $MAX_SEARCH_STEPS")
        if (curveSearchSteps > 0 && curveGenerator != VEGETA) {
            add(
                "curveSearchSteps needs curveGenerator \"$VEGETA\": k6's rates are fixed when it starts, and a search chooses its rates as the pass runs",
            )
        }
        if (jsonFullStepSeconds != 0 && jsonFullStepSeconds < shortest) {
            add("jsonFullStepSeconds must be 0 (none) or at least $shortest, as a curve step's length")
        }
        if (jsonFullStepSeconds > 0 && jsonCurveRatesPerSecond.isEmpty()) {
            add("jsonFullStepSeconds needs the /json curve (jsonCurveRatesPerSecond) before it: its ladder warms the path on the budget")
        }
        if (curveServerCpuBudget < 0 || curveServerCpuBudget.isNaN()) add("curveServerCpuBudget must be 0 (none) or more cores")
        if (curveServerCpuBudget > 0 && !hasCurve) add("curveServerCpuBudget needs a curve to hold the server to it (curve rates)")
        if (curveServerCpuBudget > 0 && curveServerCpuBudget >= serverCpus) {
            add("curveServerCpuBudget must be under serverCpus ($serverCpus): a budget is a share of the server's own CPUs")
        }
        if (dashboardCurveRatesPerSecond.isNotEmpty() && dashboardRatePerSecond == 0) {
            add("dashboardCurveRatesPerSecond needs the dashboard phase (dashboardRatePerSecond above 0) to warm the path first")
        }
    }

    /** Where the pool is smaller than a curve's top rate times its bound needs in flight: a full pool would not show on the wire. */
    private fun poolProblems(): List<String> = listOf(
        Triple("json", jsonCurveRatesPerSecond, jsonCurveP99BoundMs),
        Triple("dashboard", dashboardCurveRatesPerSecond, dashboardCurveP99BoundMs),
    ).filter { (_, rates, _) -> rates.isNotEmpty() }.mapNotNull { (endpoint, rates, boundMs) ->
        val needed = ceil(rates.max() * boundMs / 1000).toInt()
        if (curveConnections >= needed) return@mapNotNull null
        "curveConnections must be at least $needed: /$endpoint's top, ${rates.max()}/s, answered in its ${boundMs.toInt()} ms bound, " +
            "holds $needed in flight, and a pool that fills must show on the wire"
    }

    companion object {
        /** Long enough to open this host's ~15,000 sockets at a pace the servers' accept queues take. */
        const val PROBE_SOCKET_HOLD_SECONDS = 10

        /** Enough for the JIT to compile the /json path; a probe is short, so its warm-up is too. */
        const val PROBE_WARMUP_SECONDS = 10
        const val MAX_REPEATS = 10
        const val MAX_SEARCH_STEPS = 6
        const val DEFAULT_CURVE_CONNECTIONS = 256

        /** Each is a file in the server beside the idle sockets (lab.bench.host.Preflight.requestConnections). */
        const val MAX_CURVE_CONNECTIONS = 4_096

        /** The load generators: k6 runs every profile; vegeta may offer the steady /json phase and the curve's steps. */
        const val K6 = "k6"
        const val VEGETA = "vegeta"

        /** The full step's closed loop ([ClosedLoopStep]); no profile field chooses it. */
        const val WRK = "wrk"
        val CURVE_GENERATORS = listOf(K6, VEGETA)

        @OptIn(ExperimentalSerializationApi::class)
        private val strict = Json { ignoreUnknownKeys = false }

        /** Reads and checks a profile; throws [BadInput] with a one-line reason. */
        @OptIn(ExperimentalSerializationApi::class)
        fun load(profilesDir: File, name: String): Profile {
            val known = profilesDir.listFiles { f -> f.extension == "json" }.orEmpty().map { it.nameWithoutExtension }.sorted()
            val file = File(profilesDir, "$name.json")
            if (!file.isFile) throw BadInput("unknown profile '$name'; choose one of: ${known.joinToString()}")
            val profile = try {
                file.inputStream().use { strict.decodeFromStream<Profile>(it) }
            } catch (e: IllegalArgumentException) {
                throw BadInput("$file is not a valid profile: ${e.message?.lineSequence()?.first()}")
            }
            val problems = profile.problems()
            if (problems.isNotEmpty()) throw BadInput("$file: ${problems.joinToString("; ")}")
            return profile
        }
    }
}
