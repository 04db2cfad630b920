package lab.bench

import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.ProgramResult
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.flag
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.types.choice
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.bench.collect.JfrRecording
import lab.bench.folder.RunFolderFormat
import lab.bench.host.CpuSplit
import lab.bench.host.HostLimits
import lab.bench.host.Preflight
import lab.bench.host.PreflightRefusal
import lab.bench.host.QuietHost
import lab.bench.host.checkLoadGenerators
import lab.bench.load.K6GoRuntime
import lab.bench.load.LoadGeneratorLost
import lab.bench.load.LoadGenerators
import lab.bench.load.Profile
import lab.bench.load.SshHost
import lab.bench.load.VegetaCurve
import lab.bench.load.Wrk
import lab.experiment.BadInput
import lab.experiment.ExperimentMain
import lab.experiment.ExperimentRun
import lab.handlers.Limits
import lab.support.BuiltJars
import lab.support.Catalogue
import lab.support.FutexHash
import lab.support.JvmFlags
import lab.support.Provenance
import lab.support.RunFolder
import lab.support.collectorOption
import lab.support.serversOption
import java.io.File
import java.util.concurrent.CompletableFuture
import kotlin.random.Random

private class BenchCommand : ExperimentMain("bench") {
    override fun help(context: Context) = "Runs every server under one k6 profile and writes results/<timestamp>-<profile>/."

    private val profileName by option("--profile", help = "a profile in loadtests/profiles").default("local")
    private val servers by serversOption()
    private val serverJdk by option("--server-jdk", help = "the JDK home the servers run on").file().required()
    private val k6 by option("--k6", help = "the k6 binary").file().required()
    private val vegeta by option(
        "--vegeta",
        help = "the lab's vegeta-steps (setup/vegeta-steps.sh), for a profile that gives vegeta load (jsonGenerator, curveGenerator)",
    ).file()
    private val wrk by option("--wrk", help = "wrk (setup/wrk.sh), for a full step (jsonFullStepSeconds); none leaves it out").file()
    private val pinThresholdMs by option("--pin-threshold-ms", help = "shortest pinning that JFR records").long()
        .restrictTo(0L..60_000L).default(20)
    private val jsonRate by option("--json-rate", help = "run /json at this rate instead of calibrating one").int()
        .restrictTo(1..100_000)

    // Well inside the servers' downstream timeout, so no /dashboard of a run times out by design.
    private val stubLatencyMs by option("--stub-latency-ms", help = "the downstream stub's latency").long()
        .restrictTo(0L..Limits().downstreamTimeoutMs / 2).default(20)
    private val ballastBytes by option(
        "--socket-ballast-bytes",
        help = "make every server retain this many bytes per open WebSocket (the memory pipeline's known truth)",
    ).int().restrictTo(0..(64 shl 20)).default(0)
    private val ballastKind by option("--socket-ballast", help = "where the ballast lives: heap or direct").choice("heap", "direct")
        .default("heap")
    private val collector by collectorOption("every server")
    private val futexHash by option("--futex-hash", help = "where every server's threads wait: global or kernel (lab.support.FutexHash)")
        .choice(FutexHash.Choice.entries.associateBy { it.slug }).default(FutexHash.Choice.GLOBAL)
    private val k6Dashboard by option(
        "--k6-dashboard",
        help = "run k6's web dashboard too, live during each pass and exported into its folder (it costs k6's latency)",
    ).flag()
    private val passSeed by option("--seed", help = "the seed that shuffles the passes' order; by default a new one each run").long()
    private val bindAddress by option("--bind", help = "the address the servers listen on (loopback unless load comes from other hosts)")
        .default("127.0.0.1")
    private val serverPort by option("--server-port", help = "the servers' port; 0 picks a free one").int().restrictTo(0..65535).default(0)
    private val loadgens by option("--loadgen", help = "user@host[:port] of a load generator, one per k6 execution segment").multiple()
    private val loadgenKey by option("--loadgen-key", help = "the SSH key for the load generators").file()
    private val loadgenK6 by option("--loadgen-k6", help = "the pinned k6 on the load generators").default("k6")
    private val loadgenDir by option("--loadgen-dir", help = "where k6 works on the load generators").default("loom-lab/segments")
    private val sourceCommit by option(
        "--git-commit",
        help = "the commit the jars were built from, where the repository is not beside them",
    )
    private val sourceDirty by option("--git-dirty", help = "with --git-commit: the working tree had changes").flag()
    private val knownHosts by option("--known-hosts", help = "the load generators' host keys, kept for this run").file()
    private val profilesDir by option(
        "--profiles",
        hidden = true,
        help = "for tests that need a timeline of their own: the folder the profile is read from instead of loadtests/profiles",
    ).file()
    private val holdIn by option(
        "--hold-in",
        hidden = true,
        help = "for tests of stopping: hold the first pass that reaches this phase until the run is stopped",
    )

    /** k6's dashboard runs when asked for, and always on load generators, which give k6 CPUs of its own. */
    private fun dashboardOn(generators: LoadGenerators?) = k6Dashboard || generators != null

    private val serverArgs: List<String>
        get() = listOf("--futex-hash", futexHash.slug) +
            if (ballastBytes > 0) listOf("--socket-ballast-bytes", "$ballastBytes", "--socket-ballast", ballastKind) else emptyList()

    /** Besides the experiments' exit codes, 3: the preflight refused the host, before any server started. */
    override fun run() {
        try {
            bench()
        } catch (e: PreflightRefusal) {
            echo("$label PROFILE=$profileName: ${e.message}", err = true)
            throw ProgramResult(3)
        }
    }

    private fun bench() {
        // make bench-vps ships jars without their sources, and names the commit they came from (sourceCommit).
        if (sourceCommit == null) BuiltJars.refusalForRun(repo, Catalogue.servers)?.let { throw BadInput(it) }
        val asLoaded = Profile.load(profilesDir ?: File(repo, "loadtests/profiles"), profileName)
        val jdk = Provenance.Jdk.read(serverJdk)
        if (!k6.canExecute()) throw BadInput("$k6 is not an executable k6; setup/k6.sh builds one")
        val generators = loadGenerators()
        // wrk runs beside the servers only: with load from other hosts, or no --wrk (make bench-vps ships none), the full step is
        // left out, and the manifest's profile says so. A --wrk that is not an executable is refused below.
        val fullStepLeftOut = when {
            !asLoaded.offersWrk -> null
            generators != null -> "wrk offers it beside the servers only, and the load comes from other hosts"
            wrk == null -> "no --wrk was given"
            else -> null
        }
        val profile = if (fullStepLeftOut != null) asLoaded.copy(jsonFullStepSeconds = 0) else asLoaded
        VegetaCurve.checkGenerator(profile, profileName, vegeta, loadHere = generators == null)
        if (profile.offersWrk && wrk?.canExecute() != true) {
            throw BadInput(
                "profile $profileName has a full step (jsonFullStepSeconds), which needs wrk: pass --wrk (setup/wrk.sh installs it)",
            )
        }
        val limits = HostLimits.read()
        val decision = Preflight.check(profile, limits, scalable = profileName != "vps", loadHere = generators == null)
        generators?.let { Preflight.checkLoadGenerators(it, decision.idleSockets) }
        val host = QuietHost.check()
        if (host.verdict == QuietHost.Verdict.REFUSE) throw PreflightRefusal(host.reasons)
        // Where the load comes from other hosts, nothing of it runs here to divide the CPUs with.
        val split = if (generators == null) CpuSplit.forThisHost(profile.serverCpus) else null
        // Read before this pin, which narrows the CPUs the harness sees; its children (the stub, k6, jcmd) inherit it.
        split?.pinToLoadCpus()

        val progress = Progress()
        val run =
            startRun(
                profileName,
                Manifest.serializer(),
                firstManifest(profile, jdk, decision, limits, generators, split).copy(hostChecks = listOf(host)),
            )
        val runDir = run.folder
        val jfr = JfrRecording.write(runDir, pinThresholdMs)
        run.record { it.copy(jfrFlags = jfr.jvmOptions) }
        RunFolder.linkLatest(resultsDir, runDir)
        progress.say(
            "run ${runDir.path}: profile $profileName, ${decision.idleSockets} idle sockets, JDK ${jdk.version}, ${collector.label}",
        )
        decision.notes.forEach { progress.say("preflight: $it") }
        fullStepLeftOut?.let { progress.say("the full step is left out: $it") }
        host.reasons.forEach { progress.say("host: $it") }
        split?.let {
            progress.say(
                "CPUs: the server on ${CpuSplit.cpuList(it.serverCpus)}, k6, the stub and the harness on ${CpuSplit.cpuList(it.loadCpus)}",
            )
        }

        val outcomes = try {
            val declared = RunSetup(
                repo, profile, decision, File(serverJdk, "bin/java"), jdk.feature, k6,
                File(repo, "loadtests/bench.js"), stubLatencyMs, jfr, bindAddress, serverPort, generators, split,
                serverArgs = serverArgs,
                k6Dashboard = dashboardOn(generators),
                holdIn = holdIn,
                vegeta = vegeta.takeIf { profile.offersVegeta },
                wrk = wrk?.takeIf { profile.offersWrk }?.let { Wrk(it, File(repo.absoluteFile, Wrk.SCRIPT)) },
                collector = collector,
            )
            val rate = jsonRate(declared, File(runDir, "calibration"), run, progress)
            runPasses(declared.copy(profile = profile.copy(jsonRatePerSecond = rate)), runDir, run, progress)
        } catch (e: LoadGeneratorLost) {
            progress.say("stopped: ${e.message}")
            run.stop { it.copy(reason = e.message) }
            throw ProgramResult(1)
        }
        progress.say(OutcomeTable.of(outcomes))
        run.end { problems -> "${problems.size} of ${outcomes.size} passes failed; the report shows what the others measured" }
    }

    private fun firstManifest(
        profile: Profile,
        jdk: Provenance.Jdk,
        decision: Preflight.Decision,
        limits: HostLimits,
        generators: LoadGenerators?,
        split: CpuSplit?,
    ) = Manifest(
        // make bench-vps ships jars, not the repository: it says which commit they came from.
        provenance = provenance(jdk, sourceCommit, sourceDirty),
        runFolderFormat = RunFolderFormat.version,
        profileName = profileName,
        profile = profile,
        preflight = decision,
        limits = limits,
        harnessJdk = Runtime.version().toString(),
        jvmFlags = JvmFlags.forServer(profile.heapMb, jdk.feature, collector) + listOfNotNull(split?.activeProcessorCountFlag),
        collector = collector.slug,
        cpuSplit = split,
        serverArgs = serverArgs,
        k6Version = RunFolder.commandText(k6.path, "version").lineSequence().first(),
        vegeta = vegeta?.takeIf { profile.offersVegeta }?.path.orEmpty(),
        wrk = wrk?.takeIf { profile.offersWrk }?.let { Wrk.version(it) }.orEmpty(),
        servers = servers.map { it.name },
        catalogue = servers,
        engines = Catalogue.enginesOf(servers),
        pinThresholdMs = pinThresholdMs,
        bindAddress = bindAddress,
        loadGenerators = generators?.describe().orEmpty(),
        k6Dashboard = dashboardOn(generators),
        k6Environment = if (generators == null) K6GoRuntime.environment() else mapOf("shell" to K6GoRuntime.shellAssignments),
        vegetaEnvironment = if (profile.offersVegeta) VegetaCurve.environment() else emptyMap(),
    )

    /** The /json rate of the run: `--json-rate`'s, the one calibration finds (recorded with its probes), or the profile's. */
    private fun jsonRate(setup: RunSetup, calibrationDir: File, run: ExperimentRun<Manifest>, progress: Progress): Int {
        val profile = setup.profile
        val calibration = if (jsonRate == null && profile.calibrationSeconds > 0) {
            progress.say("calibration: the highest /json rate up to ${profile.jsonRatePerSecond}/s that every server sustains")
            RateCalibration(setup, calibrationDir, progress, maxProbes = servers.size + 3).run(servers)
        } else {
            null
        }
        val rate = jsonRate ?: calibration?.ratePerSecond ?: profile.jsonRatePerSecond
        val choice = when {
            jsonRate != null -> "given on the command line (--json-rate, make bench RATE=)"
            calibration != null ->
                "calibrated: the highest rate up to ${profile.jsonRatePerSecond}/s that every server sustained " +
                    "with zero dropped iterations in a ${profile.calibrationSeconds} s probe (see calibration/)"
            else -> "the profile's: ${profile.jsonRateReason.ifBlank { "declared in loadtests/profiles/$profileName.json" }}"
        }
        run.record {
            it.copy(
                jsonRatePerSecond = rate,
                jsonRateChoice = choice,
                calibration = calibration,
                timeline = profile.copy(jsonRatePerSecond = rate).timeline,
            )
        }
        progress.say(
            when {
                jsonRate != null -> "/json at $rate/s, as --json-rate says"
                calibration == null -> "/json at $rate/s, as the profile says"
                calibration.unsustained.isEmpty() -> "calibration: /json at $rate/s"
                else -> "calibration: /json at $rate/s, which ${calibration.unsustained.joinToString()} did not sustain"
            },
        )
        return rate
    }

    /** Every pass of the run, in [Pass.plan]'s order (recorded first), each outcome recorded in the manifest as its pass ends. */
    private fun runPasses(setup: RunSetup, runDir: File, run: ExperimentRun<Manifest>, progress: Progress): List<ServerOutcome> {
        val outcomes = mutableListOf<ServerOutcome>()
        val seed = passSeed ?: Random.nextLong()
        val passes = Pass.plan(servers, setup.profile.repeats, setup.profile.compareWithoutJfr, seed)
        run.record { it.copy(passOrder = passes.map(Pass::folder), passSeed = seed) }
        progress.say("${passes.size} passes, in this order (seed $seed): ${passes.joinToString { it.folder }}")
        for ((index, pass) in passes.withIndex()) {
            val name = pass.folder
            progress.say("$name: starting, pass ${index + 1} of ${passes.size}")
            // What another program does now would be in this pass's figures. The check reads the host over its window while
            // the pass's stub and server start: it leaves this harness's tree out, so their start is not "other", and the
            // window costs no time. The run's first pass had the check before the run.
            val checking = if (index == 0) null else CompletableFuture.supplyAsync { QuietHost.check(betweenPasses = true) }
            val ran = ServerRun(pass.server, setup, File(runDir, name), progress, pass.streamJfr, label = name).run()
            val host = checking?.join()
            host?.let { check -> run.record { it.copy(hostChecks = it.hostChecks + check) } }
            host?.reasons?.forEach { progress.say("$name: host: $it") }
            val outcome = ran.copy(repeat = pass.repeat, marks = ran.marks + host?.reasons.orEmpty().map { "the host was not quiet: $it" })
            outcomes += outcome
            run.record {
                it.copy(outcomes = outcomes.toList(), kernelMemorySource = it.kernelMemorySource ?: outcome.kernelMemorySource)
            }
            if (!outcome.ok) run.problem("$name: ${outcome.status}${outcome.reason?.let { " ($it)" } ?: ""}")
            progress.say("$name: ${outcome.status}${outcome.reason?.let { " ($it)" } ?: ""}")
        }
        return outcomes
    }

    private fun loadGenerators(): LoadGenerators? {
        if (loadgens.isEmpty()) return null
        val key = loadgenKey ?: throw BadInput("--loadgen needs --loadgen-key, the run's SSH key for the load generators")
        if (!key.isFile) throw BadInput("--loadgen-key $key is not a file")
        return LoadGenerators(
            hosts = loadgens.map(SshHost::parse),
            key = key,
            k6 = loadgenK6,
            workDir = loadgenDir,
            knownHosts = knownHosts ?: File(key.path + ".known_hosts"),
        )
    }
}

fun main(args: Array<String>): Unit = BenchCommand().main(args)
