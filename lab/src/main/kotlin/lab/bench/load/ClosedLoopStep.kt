package lab.bench.load

import lab.bench.collect.RunClock
import lab.bench.folder.SeriesCsv
import java.io.File
import java.io.IOException
import kotlin.math.roundToInt

/**
 * The curve's full step ([Profile.jsonFullStepSeconds]): after the /json ladder, wrk's closed loop ([Wrk]) holds the curve's
 * connections each with one request outstanding, on the server's budget, for the step's settling and measured phases. What a
 * core of the server serves when its CPU is full is read there (labanalysis.curve).
 *
 * Why a closed loop, and why wrk: an open-model generator pays for every request it sends, and at the ladder's top vegeta,
 * k6 holding the sockets and the wire's capture filled the load's one CPU along with the server's budget, so what a parking
 * server served there was what the load could send. wrk costs a fraction of vegeta a request, and a closed loop offers exactly
 * what the server takes, so the server, not the load, sets what the step serves (docs/under-load.md, "The full step").
 *
 * Every answer wrk counted from the measured phase's start, and how many were not 2xx or 3xx, is a row of `closed-loop.csv`, as
 * run-folder.json declares it.
 */
class ClosedLoopStep(
    private val wrk: Wrk,
    private val baseUrl: String,
    timeline: List<LoadPhase>,
    /** The curve's pool ([Profile.curveConnections]): the same count of connections the ladder's steps went on. */
    private val connections: Int,
    private val dir: File,
    private val clock: RunClock,
    /** Called with wrk's pid as it starts: the CPU sampler follows it (CpuSampler.Role.WRK). */
    private val onStart: (Long) -> Unit,
) : AutoCloseable {
    /** The full steps of the timeline, each with the settling phase before it. */
    val steps: List<Pair<LoadPhase, LoadPhase>> = timeline.zipWithNext().filter { (_, step) -> LoadTimeline.isFullStep(step) }

    private val failures = mutableListOf<String>()
    private val rows = mutableListOf<List<Any>>()

    @Volatile private var closed = false
    private val runner = Thread(::runAll, "closed-loop-step").apply { isDaemon = true }

    /** What went wrong, for the pass's marks: a step wrk did not finish, or gave no result for. */
    val problems: List<String> get() = synchronized(failures) { failures.toList() }

    /** Starts following the clock; call once the pass's load has started (RunClock.markLoadStart). */
    fun start() {
        if (steps.isNotEmpty()) runner.start()
    }

    private fun runAll() = try {
        for ((settle, step) in steps) runStep(settle, step)
    } catch (_: InterruptedException) {
        // Closed: the pass is ending early.
    }

    private fun runStep(settle: LoadPhase, step: LoadPhase) {
        val waitMs = ((settle.fromSeconds - clock.loadSeconds()) * 1000).toLong()
        if (waitMs > 0) Thread.sleep(waitMs)
        if (closed) return
        // wrk runs whole seconds: to the step's end, the nearest second, so a start a few ms late ends a few ms into the next
        // phase (the curve's next settling) rather than a second short. Started later (a pass behind its clock), it still counts
        // from its measured phase.
        val startS = clock.loadSeconds()
        val seconds = (step.toSeconds - startS).roundToInt()
        val windowFromMs = ((step.fromSeconds - startS) * 1000).toLong()
        if (seconds < 1 || windowFromMs < 0) {
            synchronized(failures) { failures += "the full step ${step.name} started too late to be measured" }
            return
        }
        val log = File(dir, "wrk-${step.name}.log")
        val result = try {
            // Each connection's first request within the settling's first second, so all are in flight before the count starts.
            wrk.runFollowed(
                "$baseUrl/${step.endpoint}",
                connections,
                seconds,
                VegetaCurve.REQUEST_TIMEOUT_S.toInt(),
                Wrk.Window(spreadMs = minOf(SPREAD_MS, windowFromMs), fromMs = windowFromMs),
                log,
                onStart,
            )
        } catch (e: WrkFailed) {
            synchronized(failures) { failures += "the full step ${step.name}: ${e.message}" }
            return
        } catch (e: IOException) {
            synchronized(failures) { failures += "wrk did not start for the full step ${step.name}: ${e.message}" }
            return
        }
        val notOk = result.statuses.filterKeys { it.toIntOrNull() !in 200..399 }.values.sum()
        val errors = result.errors
        synchronized(rows) {
            rows += listOf(
                step.name, step.endpoint!!, connections, (result.durationUs / 1e6 - result.windowFromMs / 1e3), result.answeredInWindow,
                notOk, errors.timeout, errors.connect + errors.read + errors.write, result.latencyUs.p50 / 1e3, result.latencyUs.p99 / 1e3,
            )
        }
    }

    /** Waits for the steps to end (each stops by itself at its phase's end) and writes `closed-loop.csv`; nothing without steps. */
    fun collect() {
        if (steps.isEmpty()) return
        runner.join(WAIT_AFTER_END_MS)
        if (runner.isAlive) {
            close()
            synchronized(failures) { failures += "wrk's full step did not end with its phase and was stopped" }
        }
        File(dir, FILE).bufferedWriter().use { out ->
            val csv = SeriesCsv(out, FILE)
            synchronized(rows) { rows.forEach { csv.row(*it.toTypedArray()) } }
            csv.flush()
        }
    }

    /** Stops the step at once: the pass is ending early (a failure, or Ctrl-C); wrk, a child of the harness, stops with it. */
    override fun close() {
        closed = true
        runner.interrupt()
    }

    companion object {
        /** One row per full step; its columns are run-folder.json's. */
        const val FILE = "closed-loop.csv"

        /** Over how long the connections' first requests are spread, at most: wrk opens them all at once. */
        const val SPREAD_MS = 500L

        /** How long collect waits for a step past the timeline's end: wrk's own stop, and its timeout for the last answers. */
        val WAIT_AFTER_END_MS = (VegetaCurve.REQUEST_TIMEOUT_S + 5) * 1000
    }
}
