package lab.bench

import kotlinx.serialization.json.Json
import lab.bench.collect.CpuSampler
import lab.bench.collect.JfrCollector
import lab.bench.collect.JfrRecording
import lab.bench.collect.KernelMemory
import lab.bench.collect.MemoryCollector
import lab.bench.collect.PacketSocket
import lab.bench.collect.PlateauSnapshots
import lab.bench.collect.ProcSampler
import lab.bench.collect.RunClock
import lab.bench.collect.WireLatency
import lab.bench.folder.SeriesCsv
import lab.bench.host.CpuBudget
import lab.bench.load.ClosedLoopStep
import lab.bench.load.CurveSearch
import lab.bench.load.K6Load
import lab.bench.load.K6Plan
import lab.bench.load.K6Run
import lab.bench.load.K6Segments
import lab.bench.load.LoadGeneratorLost
import lab.bench.load.LoadTimeline
import lab.bench.load.Profile
import lab.bench.load.VegetaCurve
import lab.support.ChildExited
import lab.support.Children
import lab.support.ReadyLine
import lab.support.ServerConfig
import lab.support.ServerEntry
import lab.support.Stub
import lab.verify.ContractCheck
import java.io.File
import java.net.URI
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

/**
 * One server through one profile: start its JVM with the run's flags, read its JFR as it records,
 * sample /proc, drive it with k6, and stop everything. Whatever happens to the server, the
 * run ends with a [ServerOutcome] and everything measured until then stays in [dir].
 */
class ServerRun(
    private val server: ServerEntry,
    private val setup: RunSetup,
    private val dir: File,
    private val progress: Progress,
    /** False for the comparison run that measures what the JFR stream itself costs. */
    private val streamJfr: Boolean = true,
    /** How the progress lines name this run. */
    private val label: String = server.name,
) {
    private val outcomeFile = File(dir, "outcome.json")

    /** The pass's name on this host, unique within the run and across runs: its cgroups' and k6's run tag. */
    private val hostName = "${dir.parentFile.name}-${dir.name}"

    /** What the pass has seen so far, each fact recorded by a copy as it is seen, so that however the pass ends its outcome has them. */
    private var measured = PassMeasured()

    /** What the pass starts before the server and stops after it: the server's CPU budget for the curve, and its own stub. */
    private class Around(val budget: CpuBudget?, val stub: Stub.Started, val stubExitSeconds: CompletableFuture<Double>)

    /** Runs the pass, once. */
    fun run(): ServerOutcome {
        dir.mkdirs()
        val clock = RunClock(setup.profile)
        val startNs = System.nanoTime()
        var failure: String? = null
        var lostGenerator: LoadGeneratorLost? = null
        // k6's view, once a second: the socket count the memory series are plotted against.
        val load = SeriesCsv.create(dir, "load.csv", flushEachRow = true)
        // The server's CPU budget for the curve, where the profile gives one: made before anything starts, as the preflight
        // checked that this host can.
        val budget = setup.profile.curveServerCpuBudget.takeIf { it > 0 }?.let { CpuBudget.create(hostName, it) }
        // Each pass calls a stub of its own, freshly started, so no pass inherits the connections,
        // JIT state or garbage of the passes before it.
        val stub = Stub.start(setup.java.path, setup.repo, setup.stubLatencyMs, dir)
        if (stub == null) {
            load.close()
            budget?.close()
            return record(PassOutcome.of(server, setup, dir, streamJfr, measured, clock, "the stub did not start; see stub.log", startNs))
        }
        val around = Around(budget, stub, stub.process.onExit().thenApply { clock.seconds() })
        // The server's own memory group, where this host lets the harness make one, counts the kernel's memory for it alone.
        val kernel = KernelMemory.forServer(hostName)
        val process = startServer(stub.url, kernel, budget)
        val collectors = PassCollectors()
        try {
            failure = drive(process, kernel, clock, collectors, around, load)
        } catch (e: LoadGeneratorLost) {
            // Not this server's failure: without its load generator no later run would get the profile's load either.
            lostGenerator = e
            failure = e.message
        } catch (e: ServerFailure) {
            failure = e.message
        } catch (e: ChildExited) {
            failure = e.message
        } catch (e: Exception) {
            failure = "${e.javaClass.simpleName}: ${e.message}"
        } finally {
            runCatching { load.close() }
            val closed = collectors.close(measured)
            measured = closed.measured
            closed.failures[JFR]?.let { if (failure == null) failure = "the JFR stream failed: ${it.message}" }
            // Nothing is measured from here on (the collectors are closed), so the server stops at its full speed, not the budget's.
            runCatching { budget?.lift() }
            Children.stop(process, graceSeconds = 10)
            JfrRecording.tidy(dir)
            Children.stop(stub.process, graceSeconds = 5)
            runCatching { kernel.close() }
            runCatching { budget?.close() }
        }
        lostGenerator?.let { throw it }
        val outcome = PassOutcome.of(server, setup, dir, streamJfr, measured, clock, failure, startNs)
        val ready = measured.readyLine
        return record(
            outcome.copy(
                kernelMemorySource = kernel.source,
                futexHash = ready?.let { ReadyLine.fact(it, ServerConfig.FUTEX_HASH) },
                poolThreadsMax = ready?.let { ReadyLine.fact(it, ServerConfig.POOL_THREADS_MAX) }?.toIntOrNull(),
            ),
        )
    }

    private fun record(outcome: ServerOutcome): ServerOutcome {
        outcomeFile.writeText(Json { prettyPrint = true }.encodeToString(ServerOutcome.serializer(), outcome))
        return outcome
    }

    /** Starts the collectors and k6 on the ready server and follows the load to its end; returns why k6's run does not count, if it does not. */
    private fun drive(
        process: Process,
        kernel: KernelMemory,
        clock: RunClock,
        collectors: PassCollectors,
        around: Around,
        load: SeriesCsv,
    ): String? {
        val url = Children.awaitReady(process, File(dir, "server.log"), READY_TIMEOUT_S)
            ?: throw ServerFailure("did not print its READY line within $READY_TIMEOUT_S s")
        measured = measured.copy(readyLine = ReadyLine.firstIn(File(dir, "server.log")))
        // k6 starts paused, and initialises its VUs while the contract is checked and the memory at rest taken apart: it sends
        // nothing until its timeline starts (awaitRunning).
        val plan = K6Plan.of(setup.profile, setup.preflight.idleSockets, url)
        val k6: K6Load = setup.loadGenerators?.let { K6Segments(it, setup.script, plan, dir, runTag = hostName) }
            ?: K6Run(setup.k6, setup.script, plan, dir, setup.preflight.sourceAddresses, setup.k6Dashboard)
        collectors.addLoad("k6", k6) { copy(k6Summary = it.summaryFile) }
        measured = measured.copy(k6StartEpochMs = System.currentTimeMillis())
        k6.start()
        ContractCheck.firstBreach(URI(url))?.let { throw ServerFailure("broke the contract before any load: $it") }
        // Each request as the wire saw it (WireLatency), beside k6's own timing of it, on the interface the load arrives by.
        val wire = try {
            WireLatency.open(setup.bindAddress, URI(url).port, File(dir, "wire.csv"), clock).also { it.start() }
                .let { collectors.add("wire", it) { wire -> copy(wireDroppedPackets = wire.droppedPackets) } }
        } catch (e: PacketSocket.Unavailable) {
            measured = measured.copy(noWire = "no wire latency (wire.csv): ${e.message}")
            null
        }
        val jfr = if (streamJfr) {
            collectors.add(
                JFR,
                JfrCollector(awaitChunks(process), dir, clock).also {
                    it.start()
                },
            ) { copy(pinnedEvents = it.pinnedEvents.get()) }
        } else {
            null
        }
        val proc = collectors.add("proc", ProcSampler(process.pid(), File(dir, "proc.csv"), clock).also { it.start() })
        val pids = mapOf(
            CpuSampler.Role.SERVER to process.pid(),
            CpuSampler.Role.HARNESS to ProcessHandle.current().pid(),
            CpuSampler.Role.STUB to around.stub.process.pid(),
        )
        val cpu = collectors.add("cpu", CpuSampler(clock, File(dir, "cpu.csv"), pids, setup.cpuSplit, around.budget).also { it.start() })
        k6.localPid?.let { cpu.track(CpuSampler.Role.K6, it) }
        val memory = collectors.add("memory", MemoryCollector(process.pid(), url, dir, clock, kernel))
        val snapshots = collectors.add("snapshots", PlateauSnapshots(memory, setup.profile).also { it.atRest() }) {
            copy(problems = problems + it.problems)
        }
        if (!k6.awaitRunning(K6_START_TIMEOUT_S)) {
            throw ServerFailure(
                when {
                    !process.isAlive -> "${exitDescription(process.exitValue())} before the load started"
                    k6.exitCode() != null -> "k6 exited with code ${k6.exitCode()} before its timeline started; see k6.log"
                    else -> "k6 did not start its timeline within $K6_START_TIMEOUT_S s; see k6.log"
                },
            )
        }
        clock.markLoadStart()
        snapshots.scheduleFromLoadStart()
        measured = measured.copy(loadStartEpochMs = System.currentTimeMillis())
        val vegeta = setup.vegeta?.let { binary ->
            val search = searchFor(clock, wire)?.let { collectors.add("search", it) }
            VegetaCurve(binary, url, setup.profile.timeline, setup.profile.curveConnections, dir, clock, search) { pid ->
                cpu.track(CpuSampler.Role.VEGETA, pid)
            }.also { it.start() }
        }?.let { collectors.addLoad("vegeta", it) { vegeta -> copy(problems = problems + vegeta.problems) } }
        val closedLoop = setup.wrk?.let { wrk ->
            ClosedLoopStep(wrk, url, setup.profile.timeline, setup.profile.curveConnections, dir, clock) { pid ->
                cpu.track(CpuSampler.Role.WRK, pid)
            }.also { it.start() }
        }?.let { collectors.addLoad("closed loop", it) { step -> copy(problems = problems + step.problems) } }
        follow(process, k6, clock, around, proc, jfr, vegeta, load)
        // A stub lost in the last second, before k6 ended, is still this pass's.
        noteStubLost(clock, around)
        val exited = k6.exitCode().takeIf { it !in setOf(0, 99) }?.let { "k6 exited with code $it; see k6.log" }
        k6.collect()
        vegeta?.collect()
        closedLoop?.collect()
        return exited ?: k6LogFiles().firstNotNullOfOrNull(::k6ScriptErrors)
    }

    /**
     * The curve's guide, from the wire's answers, where vegeta offers a curve and the wire is read; null otherwise. It stops each
     * ladder two steps past the server's limit (CurveSearch.offers) whether or not the profile searches: offered the ladder's rest,
     * Ktor's `/dashboard` backlog took a minute to drain after its last step, a minute of every pass spent on nothing measured.
     */
    private fun searchFor(clock: RunClock, wire: WireLatency?): CurveSearch? {
        val profile = setup.profile
        val curve = profile.jsonCurveRatesPerSecond.isNotEmpty() || profile.dashboardCurveRatesPerSecond.isNotEmpty()
        if (!curve || profile.curveGenerator != Profile.VEGETA || wire == null) return null
        val bounds = mapOf("json" to profile.jsonCurveP99BoundMs, "dashboard" to profile.dashboardCurveP99BoundMs)
        return CurveSearch(clock, bounds, dir).also { wire.onAnswer = it::answered }
    }

    /** Once a second until k6 ends: a row of load.csv, the peaks, and every few seconds a progress line; the server dying ends it. */
    private fun follow(
        process: Process,
        k6: K6Load,
        clock: RunClock,
        around: Around,
        proc: ProcSampler,
        jfr: JfrCollector?,
        vegeta: VegetaCurve?,
        load: SeriesCsv,
    ) {
        var previous: K6Load.Live? = null
        var ticks = 0
        var coldOpened = 0
        val deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(setup.profile.durationSeconds + K6_GRACE_S)
        // The warm sockets after the curve open on the server's whole CPU, as the cold ones did.
        val curveSeconds = setup.profile.curveStartSeconds.toDouble()..setup.profile.requestsEndSeconds.toDouble()
        while (!k6.awaitExit(LOAD_SAMPLE_MS)) {
            if (!process.isAlive) throw ServerFailure("${exitDescription(process.exitValue())} during ${clock.phase()}")
            if (System.nanoTime() > deadlineNs) throw ServerFailure("k6 did not finish within the profile's time plus $K6_GRACE_S s")
            if (setup.holdIn == clock.phase()) hold(clock.phase())
            // Within a second of the curve's start, in its first step's settling.
            around.budget?.takeIf { it.inEffectCores == null && clock.loadSeconds() in curveSeconds }?.impose()
            if (curveOver(clock, curveSeconds.endInclusive, around.budget, vegeta)) around.budget?.lift()
            noteStubLost(clock, around)
            val live = k6.live()
            val rate = live?.rateSince(previous) ?: 0.0
            previous = live ?: previous
            val sample = proc.latest
            // k6 counts the sockets it opened, cold and then warm; the warm ones open after the cold ones closed.
            val opened = live?.socketsOpened?.toInt() ?: 0
            val warm = LoadTimeline.isWarmSockets(clock.phase())
            if (!warm) coldOpened = opened
            val open = if (warm) opened - coldOpened else opened
            measured = measured.copy(
                peakSockets = maxOf(measured.peakSockets, open),
                peakRss = maxOf(measured.peakRss, sample?.rssBytes ?: 0),
                peakThreads = maxOf(measured.peakThreads, sample?.threads ?: 0),
            )
            // Flushed row by row, so that a person (or a test) can follow the run in load.csv.
            live?.let { load.row(clock.seconds(), clock.phase(), it.socketsOpened, it.requests, rate, it.p95Ms) }
            if (++ticks % PROGRESS_EVERY_TICKS == 0) {
                progress.line(
                    label, clock, setup.profile.durationSeconds, open, live, rate, sample, jfr?.heapUsedBytes, jfr?.pinnedEvents?.get(),
                    k6.dashboardUrl, vegeta?.offering(clock.loadSeconds()),
                )
            }
        }
    }

    /**
     * Whether nothing measured runs under the budget any more: the curve is over and vegeta (which offered the curve) has
     * ended every attack, so each of its requests was answered or given up on after [VegetaCurve.REQUEST_TIMEOUT_S]. An answer
     * the wire pairs later is to a request vegeta counted as failed, and over every step's p99 bound, held or not. From then on
     * the budget only slows what is left: held to it, a server that was offered a step far past its limit answered that step's
     * backlog for many seconds more, and k6's closing of the sockets waited behind it (docs/JOURNAL.md, "A pass's time").
     * Where k6 offered the curve, it is over at the curve's end: the pass's end, unless the warm sockets follow, which must open
     * on the server's whole CPU as the cold ones did.
     */
    private fun curveOver(clock: RunClock, curveEndS: Double, budget: CpuBudget?, vegeta: VegetaCurve?): Boolean {
        if (budget?.inEffectCores == null || clock.loadSeconds() < curveEndS) return false
        return setup.profile.curveGenerator != Profile.VEGETA || vegeta?.allEnded() == true
    }

    /** Marks the pass once its stub has exited under load, with the phase and time of the exit. */
    private fun noteStubLost(clock: RunClock, around: Around) {
        val exitS = around.stubExitSeconds.takeIf { it.isDone && measured.stubLost == null }?.join() ?: return
        val lost = "the stub ${exitDescription(around.stub.process.exitValue())} during ${clock.phase(exitS)} at $exitS s: " +
            "/dashboard got the servers' 502 from then on"
        measured = measured.copy(stubLost = lost)
        progress.say("$label: $lost")
    }

    /**
     * Stays here until the harness is stopped, having said so in `holding`: a test of stopping
     * then stops a run at a moment it knows, rather than racing the run to its end.
     */
    private fun hold(phase: String): Nothing {
        File(dir, "holding").writeText(phase)
        while (true) Thread.sleep(LOAD_SAMPLE_MS)
    }

    /** k6's log, or each load generator's. */
    private fun k6LogFiles(): List<File> =
        listOf(File(dir, "k6.log")) + File(dir, "k6-segments").listFiles().orEmpty().sorted().map { File(it, "k6.log") }

    /** The folder the ready server records JFR into: it made it as it started, but a file system may show it late. */
    private fun awaitChunks(process: Process): File {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHUNKS_TIMEOUT_S)
        while (System.nanoTime() < deadline && process.isAlive) {
            JfrRecording.chunksIn(dir)?.let { return it }
            Thread.sleep(100)
        }
        throw ServerFailure("recorded no JFR into $dir/${JfrRecording.REPOSITORY} within $CHUNKS_TIMEOUT_S s of its READY line")
    }

    /** The server runs in its pass's folder, where its JFR options put its recording. */
    private fun startServer(stubUrl: String, kernel: KernelMemory, budget: CpuBudget?): Process {
        val command = setup.serverPrefix + listOf(setup.java.absolutePath) + setup.serverFlags(streamJfr) + server.jarCommand(
            setup.repo,
            listOf("--host", setup.bindAddress, "--port", setup.serverPort.toString(), "--downstream-url", stubUrl) + setup.serverArgs +
                server.poolArguments(setup.preflight.poolThreads),
        )
        return Children.start(kernel.launch(budget?.launch(command) ?: command), File(dir, "server.log"), directory = dir)
    }

    private class ServerFailure(message: String) : Exception(message)

    companion object {
        /** The JFR stream's name among the collectors: a pass whose stream fails to stop has lost its pinning events. */
        private const val JFR = "jfr"
        const val READY_TIMEOUT_S = 60L
        const val K6_GRACE_S = 90L
        const val K6_START_TIMEOUT_S = 60L
        const val CHUNKS_TIMEOUT_S = 10L
        const val LOAD_SAMPLE_MS = 1_000L

        /** A progress line every 5 s. */
        const val PROGRESS_EVERY_TICKS = 5

        /** Exit codes above 128 are a signal's: 137 is SIGKILL, from `kill -9` or the kernel's OOM killer. */
        fun exitDescription(code: Int): String = when {
            code == 137 -> "exited with code 137 (SIGKILL: kill -9 or the kernel's OOM killer)"
            code > 128 -> "exited with code $code (killed by signal ${code - 128})"
            else -> "exited with code $code"
        }

        /**
         * The lab's k6 script threw: those iterations made none of their remaining requests, so the
         * load was not the profile's and the run must not pass for a measurement (k6 itself goes on
         * and exits 0). k6 logs each exception with its JavaScript stack as `source=stacktrace`.
         */
        fun k6ScriptErrors(log: File): String? {
            val errors = if (log.isFile) {
                log.useLines { lines ->
                    lines.filter { "level=error" in it && "source=stacktrace" in it }.toList()
                }
            } else {
                emptyList()
            }
            if (errors.isEmpty()) return null
            val first = errors.first().substringAfter("msg=\"").substringBefore("\\n").substringBefore('"')
            return "k6's script threw ${errors.size} time(s), first: $first; see k6.log"
        }
    }
}
