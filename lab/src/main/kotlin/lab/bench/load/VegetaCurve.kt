package lab.bench.load

import de.siegmar.fastcsv.reader.CsvReader
import lab.bench.collect.RunClock
import lab.bench.folder.SeriesCsv
import lab.experiment.BadInput
import lab.support.Children
import java.io.File
import java.io.IOException
import java.time.Instant
import java.util.Base64
import java.util.concurrent.TimeUnit
import java.util.zip.GZIPOutputStream

/**
 * The curve's steps a profile gives to vegeta ([Profile.curveGenerator]), offered beside k6,
 * which holds the idle sockets and runs every other phase.
 *
 * vegeta is an open-model generator like k6's arrival-rate scenarios: it sends at the step's
 * rate whatever the answers, each request on a worker of its own. It costs the load's CPU a
 * fraction of what k6 does per request, so the curve reaches rates the servers, not k6, fail
 * at. The lab runs vegeta's attacker as `vegeta-steps` (loadtests/vegeta-steps, built by
 * setup/vegeta-steps.sh): one process a pass, which opens a fixed pool of [connections]
 * keep-alive connections as the pass's load starts, on the server's whole CPU, and offers
 * every step on them: each step one attack, from the start of its settling phase to the end of
 * the step, started on the harness's clock when k6's timeline reaches it. Connections opened as the load came, a process a step or one unbounded pool a pass, made the
 * step's load of the server's accepts as much as of its requests (vegeta-steps' main.go says
 * how much).
 *
 * Requests in flight are capped as k6's VUs cap them ([K6Plan.vusFor], a second's worth), and
 * never above the pool's connections ([workersFor]): a worker always finds a connection free.
 * Past the cap vegeta sends a request when a worker frees, late by its schedule, and the
 * analysis counts one sent over a second late as k6's dropped iterations are, and adds the rest's
 * lateness to their latency (vegeta_sent). With more workers than connections, a step past a
 * server's capacity queued its requests for a connection, their timeout ran in the queue, and
 * those that got one late timed out on the server: each closed its connection, which the pool
 * dialled again, and left the server its work, so what a server answered on its full budget
 * there moved with how many timed out (docs/JOURNAL.md, "The top steps' connections churned").
 *
 * A search slot ([LoadPhase.searched]) is offered at the rate [CurveSearch] chooses when the
 * clock reaches it, and the pass's timeline is named for it; with no search (no wire to guide
 * it) or no rate to choose, the slot offers nothing.
 *
 * Every request is then one row of `vegeta.csv.gz` (as run-folder.json declares it): when it was sent on the pass's
 * clock, its phase by that clock (as `wire.csv` names its rows), the endpoint, the status, the
 * latency vegeta timed, and whether it passed the checks bench.js holds k6's answers to.
 */
class VegetaCurve(
    /** The lab's vegeta-steps (setup/vegeta-steps.sh). */
    private val vegeta: File,
    private val baseUrl: String,
    timeline: List<LoadPhase>,
    /** The pool's connections ([Profile.curveConnections]). */
    private val connections: Int,
    private val dir: File,
    private val clock: RunClock,
    /** Chooses each search slot's rate; null offers nothing in them. */
    search: CurveSearch?,
    /** Called with vegeta-steps' pid as it starts: the CPU sampler follows it (CpuSampler.Role.VEGETA). */
    private val onStart: (Long) -> Unit,
) : AutoCloseable {
    val attacks: List<VegetaAttack> = VegetaAttack.allOf(timeline)
    private val workDir = File(dir, "vegeta")
    private val log = File(workDir, VegetaStepsLog.FILE)
    private val started = mutableListOf<VegetaAttack>()

    @Volatile private var process: Process? = null

    private val failures = mutableListOf<String>()
    private val choice = VegetaAttackChoice(clock, search) { problem -> synchronized(failures) { failures += problem } }

    /** What went wrong with an attack, for the pass's marks: one that did not start, failed, or was stopped unfinished. */
    val problems: List<String> get() = synchronized(failures) { failures.toList() }

    @Volatile private var closed = false
    private val runner = Thread(::runAll, "vegeta-curve").apply { isDaemon = true }

    /** For the progress line: the attack under way at [loadSeconds], as `vegeta json-at-8000`; null between attacks. */
    fun offering(loadSeconds: Double): String? {
        val attack = attacks.firstOrNull { loadSeconds >= it.fromSeconds && loadSeconds < it.toSeconds } ?: return null
        // A search slot's step takes its rate's name once chosen: the pass's phase that ends with the attack.
        val step = clock.timeline.phases.firstOrNull { it.toSeconds == attack.toSeconds && it.endpoint == attack.endpoint }
        return "vegeta ${step?.name ?: attack.step}"
    }

    /**
     * Whether every attack of the pass has been offered and has ended (vegeta-steps' log says so of each): from then on none of
     * vegeta's requests is in flight.
     */
    fun allEnded(): Boolean {
        if (runner.isAlive) return false
        val offered = synchronized(started) { started.map { it.step } }
        return VegetaStepsLog.ended(log).containsAll(offered)
    }

    /** What vegeta-steps' log says of its pool, once [collect] has run; null where it says nothing (VegetaStepsLog). */
    fun pool(): VegetaStepsLog.PoolRecord? = VegetaStepsLog.pool(log)

    /**
     * Starts vegeta-steps, which opens its pool on the server's whole CPU now, long before the curve's first step, and follows
     * k6's timeline; call once the clock's load has started (RunClock.markLoadStart).
     */
    fun start() {
        if (attacks.isEmpty()) return
        workDir.mkdirs()
        try {
            startSteps()
        } catch (e: IOException) {
            synchronized(failures) { failures += "vegeta-steps did not start: ${e.message}; the curve's steps were not offered" }
            return
        }
        runner.start()
    }

    private fun runAll() = try {
        runEach()
    } catch (_: InterruptedException) {
        // Closed: the pass is ending early.
    }

    private fun runEach() {
        for (planned in attacks) {
            val waitMs = ((planned.fromSeconds - clock.loadSeconds()) * 1000).toLong()
            if (waitMs > 0) Thread.sleep(waitMs)
            if (closed) return
            // A search slot at its chosen rate; past the server's limit the ladder stops, and the server rests until the search.
            val attack = choice.offered(planned) ?: continue
            // The whole attack, from its own start: a few ms late (this thread's and the command's way), its schedule (the n-th
            // request due n / rate after the first) covers the step, and ends as few ms after it, when the next step's attack
            // starts: vegeta-steps sends the requests due within the length and no more. Late by more than a second, it is cut
            // to end with its step, and what it did not send by then counts as dropped.
            val lateMs = ((clock.loadSeconds() - attack.fromSeconds) * 1000).toLong()
            val fullMs = (attack.toSeconds - attack.fromSeconds) * 1000L
            val durationMs = if (lateMs <= LATE_START_MS) fullMs else fullMs - lateMs
            if (durationMs <= 0) continue
            try {
                val steps = process ?: return
                val command =
                    "attack ${attack.step} ${attack.ratePerSecond} $durationMs ${workersFor(attack.ratePerSecond, connections)} " +
                        "${targets(attack.endpoint).name} ${results(attack).name}\n"
                steps.outputStream.apply {
                    write(command.toByteArray())
                    flush()
                }
            } catch (e: IOException) {
                synchronized(failures) {
                    failures +=
                        "vegeta-steps did not take ${attack.step}: ${e.message}; see vegeta/${VegetaStepsLog.FILE}"
                }
                continue
            }
            synchronized(started) { started += attack }
        }
    }

    /** vegeta-steps, for every attack of the pass. Its flags hold for each. */
    private fun startSteps(): Process {
        val command = listOf(
            vegeta.path,
            "-connections=$connections",
            // Opened with /json, the contract's cheapest answer.
            "-warm=$baseUrl/json",
            "-timeout=${REQUEST_TIMEOUT_S}s",
            // Enough of a body to hold /json's to the contract; /dashboard's is checked by its status alone, as in bench.js.
            "-max-body=$MAX_BODY_BYTES",
        )
        // In its folder, so that each command names its files without a path, which could hold a space.
        return Children.start(command, log, directory = workDir, environment = environment()).also { started ->
            process = started
            onStart(started.pid())
        }
    }

    private fun results(attack: VegetaAttack) = File(workDir, "${attack.step}.csv")

    /** The requests of [endpoint], as bench.js makes them: /json, or /dashboard for users 0 to 999 in turn. */
    private fun targets(endpoint: String): File = File(workDir, "$endpoint.targets").also { file ->
        if (!file.isFile) {
            val paths = if (endpoint == "dashboard") (0 until DASHBOARD_USERS).map { "/dashboard/user-$it" } else listOf("/$endpoint")
            file.writeText(paths.joinToString("") { "GET $baseUrl$it\n" })
        }
    }

    /**
     * Waits for the attacks to end (each sends its last request at its step's end, and waits
     * up to [REQUEST_TIMEOUT_S] for the answers), stops vegeta-steps if it has not ended by then,
     * and writes `vegeta.csv.gz` from each attack's results; their own files go. Nothing to do
     * without attacks.
     */
    fun collect() {
        if (attacks.isEmpty()) return
        closed = true
        runner.join(TimeUnit.SECONDS.toMillis(1))
        process?.let { steps ->
            // The end of its commands: it exits once the attacks under way end.
            runCatching { steps.outputStream.close() }
            if (!steps.waitFor(REQUEST_TIMEOUT_S + 5, TimeUnit.SECONDS)) {
                Children.stop(steps, graceSeconds = 2)
                synchronized(failures) { failures += "vegeta-steps did not end with the curve's last step and was stopped" }
            } else if (steps.exitValue() != 0) {
                synchronized(failures) {
                    failures += "vegeta-steps exited with code ${steps.exitValue()}; see vegeta/${VegetaStepsLog.FILE}"
                }
            }
        }
        if (process != null) VegetaStepsLog.poolProblem(pool(), connections)?.let { synchronized(failures) { failures += it } }
        val done = synchronized(started) { started.toList() }
        GZIPOutputStream(File(dir, FILE).outputStream()).bufferedWriter().use { out ->
            val csv = SeriesCsv(out, FILE)
            for (attack in done) {
                val results = results(attack)
                if (!results.isFile) {
                    synchronized(failures) { failures += "vegeta's ${attack.step} left no results: its requests are not in $FILE" }
                    continue
                }
                copyRows(attack, results, csv)
                results.delete()
            }
            csv.flush()
        }
    }

    /** vegeta's CSV (no header; its columns as `vegeta encode -h` gives them) into run-folder.json's for [FILE]. */
    private fun copyRows(attack: VegetaAttack, encoded: File, csv: SeriesCsv) {
        CsvReader.builder().allowMissingFields(true).ofCsvRecord(encoded.toPath()).use { records ->
            for (r in records) {
                if (r.fieldCount < 9) continue
                val sentNs = r.getField(0).toLongOrNull() ?: continue
                val at = clock.secondsAt(Instant.ofEpochSecond(0, sentNs))
                val status = r.getField(1)
                val body = runCatching { String(Base64.getDecoder().decode(r.getField(6))) }.getOrDefault("")
                val passed = status == "200" && (attack.endpoint != "json" || body == JSON_BODY)
                csv.row(
                    at, clock.phase(at), attack.step, r.getField(8), attack.endpoint, status,
                    (r.getField(2).toLongOrNull() ?: 0L) / 1e6, if (passed) 1 else 0, r.getField(5),
                )
            }
        }
    }

    /** Stops every attack at once: the pass is ending early (a failure, or Ctrl-C). */
    override fun close() {
        closed = true
        runner.interrupt()
        process?.let { if (it.isAlive) Children.stop(it, graceSeconds = 2) }
    }

    companion object {
        /** One row per request; its columns are run-folder.json's. */
        const val FILE = "vegeta.csv.gz"

        /**
         * A request unanswered this long failed. Long enough that no server the curve measures gives one up: the pool's
         * connections bound what is in flight ([workersFor]), so a server past its limit answers each within connections ÷ its
         * capacity, and the backlog drains within the next step's settling. A timeout under that closed the connections of
         * answers still on their way, and the server answered requests nobody read (docs/JOURNAL.md, "The curve's timeout").
         */
        const val REQUEST_TIMEOUT_S = 10L

        /** /json's answer, as bench.js checks it (the contract's, lab.verify.ContractCases). */
        const val JSON_BODY = """{"message":"Hello, World!"}"""
        const val MAX_BODY_BYTES = 64
        const val DASHBOARD_USERS = 1000

        /** A profile that gives the curve to vegeta needs vegeta-steps here, beside the servers, as the wire and the CPU split are. */
        fun checkGenerator(profile: Profile, profileName: String, vegeta: File?, loadHere: Boolean) {
            if (!profile.offersVegeta) return
            val binary = vegeta
                ?: throw BadInput(
                    "profile $profileName gives load to vegeta: pass --vegeta, the vegeta-steps that setup/vegeta-steps.sh builds",
                )
            if (!binary.canExecute()) {
                throw BadInput(
                    "$binary is not an executable vegeta-steps; setup/vegeta-steps.sh builds one",
                )
            }
            if (!loadHere) {
                throw BadInput(
                    "profile $profileName gives load to vegeta, which runs beside the servers only: drop --loadgen",
                )
            }
        }

        /**
         * vegeta-steps may take this fraction of the host's memory (1/8) before Go collects: it holds at most two attacks at once
         * (a step's, and the last one's where it fell behind and goes on past its step), each writing its results as they come,
         * beside k6's half ([K6GoRuntime]) and the server's heap.
         */
        const val MEMORY_SHARE_DENOMINATOR = 8

        /**
         * vegeta-steps' Go runtime ([GoRuntime]): with Go's default collector, vegeta's own p99 at the `/json` ladder's top was
         * hundreds of times this one's, and it used a quarter more CPU (loadtests/probes/vegeta-go-collector.sh; docs/under-load.md,
         * "The curve's load generator: vegeta"; docs/JOURNAL.md, "vegeta's own collector"). The manifest records it
         * (`vegetaEnvironment`).
         */
        fun environment(): Map<String, String> = GoRuntime.environment(GoRuntime.hostMemoryBytes() / MEMORY_SHARE_DENOMINATOR)

        /** The workers an attack at [ratePerSecond] gets: a second's worth, as k6's VUs, and no more than the pool's [connections]. */
        fun workersFor(ratePerSecond: Int, connections: Int): Int = minOf(K6Plan.vusFor(ratePerSecond), connections)

        /** An attack started up to this late keeps its whole length (see runEach). */
        const val LATE_START_MS = 1000L
    }
}
