package lab.bench.load

import de.siegmar.fastcsv.reader.CsvReader
import lab.bench.collect.RunClock
import lab.bench.folder.SeriesCsv
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
 * at. Each step is one `vegeta attack`, from the start of its settling phase to the end of the
 * step, started on the harness's clock when k6's timeline reaches it. The same cap on requests
 * in flight as k6's VUs ([K6Plan.vusFor]) holds: past it vegeta waits for a free worker and the
 * step falls short of its rate, which the analysis counts as k6's dropped iterations are.
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
    private val vegeta: File,
    private val baseUrl: String,
    timeline: List<LoadPhase>,
    private val dir: File,
    private val clock: RunClock,
    /** Chooses each search slot's rate; null offers nothing in them. */
    search: CurveSearch?,
    /** Called with each attack's pid as it starts: the CPU sampler follows it (CpuSampler.Role.VEGETA). */
    private val onAttack: (Long) -> Unit,
) : AutoCloseable {
    val attacks: List<VegetaAttack> = VegetaAttack.allOf(timeline)
    private val workDir = File(dir, "vegeta")
    private val started = mutableListOf<Pair<VegetaAttack, Process>>()

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

    /** Starts following k6's timeline; call once the clock's load has started (RunClock.markLoadStart). */
    fun start() {
        if (attacks.isEmpty()) return
        workDir.mkdirs()
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
            // The whole attack, from its own start: a few ms late (vegeta's and this thread's start), its schedule (the n-th
            // request due n / rate after the first) covers the step, and ends as few ms after it. Late by more than a second, it
            // is cut to end with its step, and what it did not send by then counts as dropped.
            val lateMs = ((clock.loadSeconds() - attack.fromSeconds) * 1000).toLong()
            val fullMs = (attack.toSeconds - attack.fromSeconds) * 1000L
            val durationMs = TAIL_MS + if (lateMs <= LATE_START_MS) fullMs else fullMs - lateMs
            if (durationMs <= 0) continue
            val log = File(workDir, "${attack.step}.log")
            val process = try {
                Children.start(command(attack, durationMs), log, environment = environment())
            } catch (e: IOException) {
                synchronized(failures) { failures += "vegeta did not start ${attack.step}: ${e.message}" }
                continue
            }
            synchronized(started) { started += attack to process }
            onAttack(process.pid())
        }
    }

    private fun command(attack: VegetaAttack, durationMs: Long): List<String> {
        val inFlight = K6Plan.vusFor(attack.ratePerSecond).toString()
        return listOf(
            vegeta.path, "attack",
            "-targets=${targets(attack.endpoint).path}",
            "-rate=${attack.ratePerSecond}/1s",
            "-duration=${durationMs}ms",
            // Every worker made before the step starts, as k6 makes every VU; no more than k6 would have.
            "-workers=$inFlight",
            "-max-workers=$inFlight",
            "-timeout=${REQUEST_TIMEOUT_S}s",
            // Enough of a body to hold /json's to the contract; /dashboard's is checked by its status alone, as in bench.js.
            "-max-body=$MAX_BODY_BYTES",
            "-http2=false",
            "-name=${attack.step}",
            "-output=${File(workDir, "${attack.step}.gob").path}",
        )
    }

    /** The requests of [endpoint], as bench.js makes them: /json, or /dashboard for users 0 to 999 in turn. */
    private fun targets(endpoint: String): File = File(workDir, "$endpoint.targets").also { file ->
        if (!file.isFile) {
            val paths = if (endpoint == "dashboard") (0 until DASHBOARD_USERS).map { "/dashboard/user-$it" } else listOf("/$endpoint")
            file.writeText(paths.joinToString("") { "GET $baseUrl$it\n" })
        }
    }

    /**
     * Waits for the attacks to end (each sends its last request at its step's end, and waits
     * up to [REQUEST_TIMEOUT_S] for the answers), stops any left, and writes `vegeta.csv.gz`
     * from their results; the binary results go. Nothing to do without attacks.
     */
    fun collect() {
        if (attacks.isEmpty()) return
        closed = true
        runner.join(TimeUnit.SECONDS.toMillis(1))
        val done = synchronized(started) { started.toList() }
        for ((attack, process) in done) {
            if (!process.waitFor(REQUEST_TIMEOUT_S + 5, TimeUnit.SECONDS)) {
                Children.stop(process, graceSeconds = 2)
                synchronized(failures) { failures += "vegeta's ${attack.step} did not end with its step and was stopped" }
            } else if (process.exitValue() != 0) {
                val why = "vegeta's ${attack.step} exited with code ${process.exitValue()}; see vegeta/${attack.step}.log"
                synchronized(failures) { failures += why }
            }
        }
        GZIPOutputStream(File(dir, FILE).outputStream()).bufferedWriter().use { out ->
            val csv = SeriesCsv(out, FILE)
            for ((attack, _) in done) {
                val results = File(workDir, "${attack.step}.gob")
                if (!results.isFile) {
                    synchronized(failures) { failures += "vegeta's ${attack.step} left no results: its requests are not in $FILE" }
                    continue
                }
                val encoded = File(workDir, "${attack.step}.csv")
                val encoder = Children.start(
                    listOf(vegeta.path, "encode", "--to", "csv", "--output", encoded.path, results.path),
                    File(workDir, "${attack.step}-encode.log"),
                )
                val finished = encoder.waitFor(ENCODE_TIMEOUT_S, TimeUnit.SECONDS)
                if (!finished) Children.stop(encoder, graceSeconds = 2)
                if (finished && encoder.exitValue() == 0 && encoded.isFile) {
                    copyRows(attack, encoded, csv)
                    results.delete()
                } else {
                    // Nothing is lost: the binary results stay beside the log, and the pass says so.
                    val why = "vegeta could not encode ${attack.step}'s results; they are in vegeta/${results.name}, " +
                        "see vegeta/${attack.step}-encode.log"
                    synchronized(failures) { failures += why }
                }
                encoded.delete()
            }
            csv.flush()
        }
    }

    /** vegeta's CSV (no header; its columns in `vegeta encode -h`) into run-folder.json's for [FILE]. */
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
        synchronized(started) { started.toList() }.forEach { (_, process) -> if (process.isAlive) Children.stop(process, graceSeconds = 2) }
    }

    companion object {
        /** One row per request; its columns are run-folder.json's. */
        const val FILE = "vegeta.csv.gz"

        /**
         * A request unanswered this long failed: 20 times the curve's largest bound (`/dashboard`'s 100 ms). No longer, as a
         * step past a server's limit leaves its requests in flight that long, into the steps after it: with 10 s, the platform
         * server's `/json` steps past its limit left 1,780 requests to time out after the curve's last step, the kernel resent
         * theirs for up to 10 s, and the server was still answering them, a core busy, in `/dashboard`'s first step, whose p99
         * on the wire was 957 ms at 100/s (`make curve`, 20261127-133746-curve, platform).
         */
        const val REQUEST_TIMEOUT_S = 2L

        /** /json's answer, as bench.js checks it (the contract's, lab.verify.ContractCases). */
        const val JSON_BODY = """{"message":"Hello, World!"}"""
        const val MAX_BODY_BYTES = 64
        const val DASHBOARD_USERS = 1000
        const val ENCODE_TIMEOUT_S = 120L

        /**
         * An attack may take this fraction of the host's memory (1/8) before Go collects: two attacks overlap (a step's settling
         * phase and the last one's tail), beside k6's half ([K6GoRuntime]) and the server's heap.
         */
        const val MEMORY_SHARE_DENOMINATOR = 8

        /**
         * Each attack's Go runtime ([GoRuntime]). With Go's default collector, vegeta's p99 for `/json` on one CPU was 8 ms at
         * 4,000/s and 321 ms at 8,000/s (medians of 6 passes, two runs) against 0.6 and 1.5 ms with this, from the same server,
         * and it used a quarter more CPU (loadtests/probes/vegeta-go-collector.sh; docs/under-load.md). No attack collected
         * under this limit. The manifest records it (`vegetaEnvironment`).
         */
        fun environment(): Map<String, String> = GoRuntime.environment(GoRuntime.hostMemoryBytes() / MEMORY_SHARE_DENOMINATOR)

        /** An attack started up to this late keeps its whole length (see runEach). */
        const val LATE_START_MS = 1000L

        /**
         * How long an attack goes on past its step. vegeta stops at its duration even when a few
         * requests of its schedule are still to go (it sent 79,992 of 80,000 in 10 s at 8,000/s), and
         * those would count as dropped; past the step they fall in the next settling phase, not measured.
         */
        const val TAIL_MS = 250L
    }
}
