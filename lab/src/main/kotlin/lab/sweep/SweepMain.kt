package lab.sweep

import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.flag
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.options.validate
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.bench.collect.JfrProfile
import lab.bench.folder.RunFolderFormat
import lab.bench.host.CpuSplit
import lab.bench.host.HostLimits
import lab.bench.host.PreflightRefusal
import lab.bench.load.Profile
import lab.bench.load.Wrk
import lab.experiment.BadInput
import lab.experiment.ExperimentMain
import lab.support.BuiltJars
import lab.support.Catalogue
import lab.support.Provenance
import lab.support.ServerEntry
import lab.support.serversOption
import java.io.File
import java.util.Locale

/**
 * `make sweep`: what each model buys with requests in flight (docs/under-load.md). A closed loop
 * (wrk) holds C requests in flight on each server, each waiting D ms, on `/delay` (the model
 * itself waits) and `/dashboard` (two downstream calls wait), for C in steps. Throughput should
 * be C/D until something gives (Little's law); what gives first, and at which C, is the finding.
 * Each step records throughput, latency, answers by status, the server's threads, CPU (the
 * server's set and the load's, so a step says which side ran out) and memory with the requests in
 * flight. The passes are interleaved (each pass runs every server, starting with the next one),
 * so a drift of the host lands on every server alike; each server meets each workload in a JVM of
 * its own ([SweepPass] says why). Writes `results/<time>-sweep/`.
 */
private class SweepCommand : ExperimentMain("sweep") {
    override fun help(context: Context) = "C requests in flight on each server, waiting D ms each: throughput, latency, threads and memory."

    private val jdk by option("--jdk", help = "the JDK home the servers run on (21 or later)").file().jdk().required()
    private val wrkBinary by option("--wrk", help = "wrk's path (setup/wrk.sh prints it)").file().default(File("/usr/bin/wrk"))
    private val servers by serversOption()
    private val workloadSlugs by option("--workloads", help = "delay, dashboard or both, comma-separated").split(",")
        .default(SweepWorkload.entries.map { it.slug })
    private val concurrencies by option("--concurrency", help = "requests in flight at each step, comma-separated, rising")
        .int().split(",").default(DEFAULT_CONCURRENCIES)
        .validate { c ->
            require(c.isNotEmpty() && c.all { it >= 1 } && c == c.sorted().distinct()) { "must be rising counts of 1 or more, got $c" }
        }
    private val delayMs by option("--delay-ms", help = "how long each request waits: /delay's ms, the stub's latency")
        .long().restrictTo(1L..60_000L).default(1_000)
    private val warmupSeconds by option(
        "--warmup-seconds",
        help = "each step's warm-up at its concurrency",
    ).int().restrictTo(1..600).default(6)
    private val codeWarmupMaxSeconds by option(
        "--code-warmup-max-seconds",
        help = "the longest the workload's warm-up before its first step may wait for the JIT to settle",
    ).int().restrictTo(1..600).default(150)
    private val seconds by option("--seconds", help = "each step's measured window").int().restrictTo(1..3_600).default(10)
    private val jfrProfile by option(
        "--jfr-profile",
        help = "sample where each server's CPU goes in each step's window, with JFR: profile-<workload>-<C>.* in each pass's folder",
    ).flag()
    private val passes by option("--passes", help = "passes over every server, interleaved; the report gives a range from 2")
        .int().restrictTo(1..20).default(3)

    override fun run() {
        val workloads = try {
            workloadSlugs.map { SweepWorkload.bySlug(it.trim()) }.distinct()
        } catch (e: IllegalArgumentException) {
            throw UsageError("--workloads: ${e.message}")
        }
        if (!wrkBinary.canExecute()) throw UsageError("--wrk: ${wrkBinary.path} is not an executable; setup/wrk.sh installs wrk")
        requireBuilt(servers.map { it.jarIn(repo) })
        BuiltJars.refusalForRun(repo, servers)?.let { throw BadInput(it) }

        val profile = Profile.load(File(repo, "loadtests/profiles"), BENCH_PROFILE)
        val limits = HostLimits.read()
        val split = try {
            CpuSplit.forThisHost(profile.serverCpus)
        } catch (e: PreflightRefusal) {
            throw BadInput(e.reasons.joinToString("; "))
        }
        split?.pinToLoadCpus()
        val planned = SweepSetup(
            repo = repo.absoluteFile,
            java = File(jdk.home, "bin/java"),
            jdkFeature = jdk.feature,
            heapMb = profile.heapMb,
            cpuSplit = split,
            wrk = Wrk(wrkBinary, File(repo.absoluteFile, Wrk.SCRIPT)),
            workloads = workloads,
            concurrencies = concurrencies,
            delayMs = delayMs,
            warmupSeconds = warmupSeconds,
            codeWarmupMaxSeconds = maxOf(warmupSeconds, codeWarmupMaxSeconds),
            seconds = seconds,
            openFilesLimit = limits.openFilesHard,
            profile = null,
        )
        val highest = workloads.associate { it.slug to planned.highestConcurrency(it) }
        val run = startRun("sweep", SweepManifest.serializer(), firstManifest(planned, jdk, servers, highest))
        val setup = planned.copy(profile = if (jfrProfile) JfrProfile.write(run.folder) else null)
        val stepsPerPass = workloads.sumOf { w -> concurrencies.count { it <= highest.getValue(w.slug) } }
        val stepsS = stepsPerPass * (warmupSeconds + seconds + STEP_OVERHEAD_S) + workloads.size * PASS_OVERHEAD_S
        // Each workload's code warm-up lasts until the JIT settles: between the declared warm-up and its cap.
        val estimateS = passes * servers.size * (stepsS + workloads.size * warmupSeconds)
        val longestS = passes * servers.size * (stepsS + workloads.size * maxOf(warmupSeconds, codeWarmupMaxSeconds))
        println(
            "sweep: ${servers.joinToString {
                it.name
            }} on JDK ${jdk.version}, ${workloads.joinToString { it.slug }} at C=${concurrencies.joinToString(",")}, " +
                "D=$delayMs ms, $passes passes: ${estimateS / 60} to ${longestS / 60} min, into ${run.folder.path}",
        )
        workloads.filter { highest.getValue(it.slug) < concurrencies.last() }.forEach {
            println(
                "sweep: ${it.slug} stops at C=${concurrencies.last { c ->
                    c <= highest.getValue(it.slug)
                }}: a process would need more than the " +
                    "open-files limit of ${limits.openFilesHard} (ulimit -Hn) beyond C=${highest.getValue(it.slug)}",
            )
        }
        val startNs = System.nanoTime()
        SweepCsv(run.folder).use { csv ->
            for (pass in 1..passes) {
                for (i in servers.indices) {
                    val server = servers[(i + pass - 1) % servers.size]
                    for (workload in workloads) {
                        val passStartNs = System.nanoTime()
                        val say = { line: String ->
                            println("[%s] %s".format(Locale.ROOT, clock((System.nanoTime() - startNs) / 1e9), line))
                        }
                        val which = "${server.name} ${workload.slug} pass $pass"
                        val failure = SweepPass(
                            setup,
                            server,
                            workload,
                            pass,
                            File(run.folder, "${server.name}-${workload.slug}-pass$pass"),
                            csv,
                            say,
                        ).run()
                        val passSeconds = (System.nanoTime() - passStartNs) / 1e9
                        failure?.let { say("$which ended early: $it") }
                        val status = if (failure == null) "ok" else "failed"
                        run.record {
                            it.copy(
                                passes =
                                it.passes + SweepManifest.Pass(pass, server.name, workload.slug, status, passSeconds, failure),
                            )
                        }
                        failure?.let { why -> run.problem("$which: $why") }
                    }
                }
            }
        }
        run.end { problems -> "${problems.size} server pass(es) ended early; their steps until then are in sweep.csv" }
    }

    private fun firstManifest(
        setup: SweepSetup,
        jdk: Provenance.Jdk,
        servers: List<ServerEntry>,
        highest: Map<String, Int>,
    ) = SweepManifest(
        provenance = provenance(),
        runFolderFormat = RunFolderFormat.version,
        serverJdk = jdk,
        jvmFlags = setup.serverFlags,
        cpuSplit = setup.cpuSplit,
        settings = SweepManifest.Settings(
            workloads = setup.workloads.map { it.slug },
            concurrencies = setup.concurrencies,
            delayMs = setup.delayMs,
            warmupSeconds = setup.warmupSeconds,
            codeWarmupMaxSeconds = setup.codeWarmupMaxSeconds,
            seconds = setup.seconds,
            passes = passes,
            heapMb = setup.heapMb,
            wrkTimeoutSeconds = setup.timeoutSeconds,
            openFilesLimit = setup.openFilesLimit,
            jfrProfile = jfrProfile,
            poolThreads = setup.poolThreads,
            openFilesLimitSource = "the hard limit on open files per process (ulimit -Hn), " +
                "which every process of a step (server, stub, wrk) is under",
        ),
        wrk = Wrk.version(wrkBinary),
        servers = servers.map { it.name },
        catalogue = servers,
        engines = Catalogue.enginesOf(servers),
        highestConcurrency = highest,
    )

    private fun clock(seconds: Double) = "%d:%02d".format(Locale.ROOT, seconds.toLong() / 60, seconds.toLong() % 60)

    companion object {
        /** The profile whose heap and CPU split the servers get: `make bench`'s default. */
        const val BENCH_PROFILE = "local"

        /** From the seeds' gateway case (a thousand waiting tasks) to what this host's open-files limit allows for /delay. */
        val DEFAULT_CONCURRENCIES = listOf(100, 1_000, 2_000, 4_000, 6_000)

        /** A step's memory snapshot and the gaps between its two wrk runs, in s; a pass's start and stop. */
        const val STEP_OVERHEAD_S = 4
        const val PASS_OVERHEAD_S = 10
    }
}

// The servers, stubs and wrk are stopped by Children's shutdown hook as this JVM exits.
fun main(args: Array<String>): Unit = SweepCommand().main(args)
