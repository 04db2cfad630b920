package lab.autobahn

import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.bench.folder.RunFolderFormat
import lab.bench.host.CpuSplit
import lab.bench.host.PreflightRefusal
import lab.bench.load.Profile
import lab.experiment.BadInput
import lab.experiment.ExperimentMain
import lab.support.Catalogue
import lab.support.Children
import lab.support.JvmFlags
import lab.support.Provenance
import lab.support.RunFolder
import lab.support.ServerEntry
import lab.support.serversOption
import java.io.File
import java.net.URI
import java.util.Locale
import java.util.concurrent.TimeUnit
import kotlin.random.Random

/**
 * `make autobahn-perf`: a WebSocket echo comparison on a peer's own workload. The Autobahn
 * testsuite's section 9 (large messages, many frames, each case timed by wstest) against each
 * arm: a catalogue server with all of the lab's changes to its engine, or without some
 * (`server:change+change`). Each server runs alone, on CPUs of its own ([CpuSplit]: wstest and
 * this harness on the others), in interleaved passes whose order is shuffled by a recorded seed,
 * so a drift of the host lands on every arm alike. The harness writes facts: each pass's folder
 * holds wstest's own `index.json` and report; labanalysis.autobahn.autobahnperf computes every figure.
 * Writes `results/<time>-autobahn/`.
 */
private class AutobahnPerfCommand : ExperimentMain("autobahn-perf") {
    override fun help(context: Context) = "Autobahn's section 9, timed by wstest, on each server alone: a WebSocket echo comparison."

    private val jdk by option("--jdk", help = "the JDK home the servers run on (21 or later)").file().jdk().required()
    private val wstest by option("--wstest", help = "the Autobahn testsuite's wstest (setup/autobahn.sh prints it)").file().required()

    /** Each a catalogue server, or an arm of one: `ktor-coroutine:close-linger+raw-session` ([Catalogue.arm]). */
    private val arms by serversOption("--arms")
    private val cases by option("--cases", help = "Autobahn cases, comma-separated, as wstest takes them").split(",").default(listOf("9.*"))
    private val passes by option("--passes", help = "passes over every arm, interleaved; the report gives a range from 2")
        .int().restrictTo(1..20).default(3)
    private val seed by option("--seed", help = "the seed of the passes' orders; random unless given").long()
    private val passTimeoutMinutes by option("--pass-timeout-minutes", help = "the longest one arm's pass may take")
        .int().restrictTo(1..120).default(20)

    override fun run() {
        if (!wstest.canExecute()) throw UsageError("--wstest: ${wstest.path} is not an executable; setup/autobahn.sh installs it")
        requireBuilt(arms.map { it.jarIn(repo) })

        val profile = Profile.load(File(repo, "loadtests/profiles"), PROFILE)
        val split = try {
            CpuSplit.forThisHost(profile.serverCpus)
        } catch (e: PreflightRefusal) {
            throw BadInput(e.reasons.joinToString("; "))
        }
        // wstest, started from here, inherits the load's CPUs.
        split?.pinToLoadCpus()
        val flags = JvmFlags.forServer(profile.heapMb, jdk.feature) + listOfNotNull(split?.activeProcessorCountFlag)
        val passSeed = seed ?: Random.nextLong()
        val servers = arms.map { Catalogue.named(it.armOf ?: it.name) }.distinct()
        val first = AutobahnManifest(
            provenance = provenance(),
            runFolderFormat = RunFolderFormat.version,
            wstest = RunFolder.commandText(wstest.path, "-a").lines().filter { it.isNotBlank() }.joinToString(", ") { it.trim() },
            cases = cases,
            passes = passes,
            passSeed = passSeed,
            maxFrameBytes = MAX_FRAME_BYTES,
            serverJdk = jdk,
            jvmFlags = flags,
            cpuSplit = split,
            arms = arms.map { AutobahnManifest.Arm(it.name, it.armOf ?: it.name, it.asShipped, it.alternatives) },
            catalogue = servers,
            engines = Catalogue.enginesOf(servers),
        )
        val run = startRun("autobahn", AutobahnManifest.serializer(), first)
        println(
            "autobahn-perf: ${arms.joinToString {
                it.name
            }}, cases ${cases.joinToString(",")}, $passes passes, seed $passSeed, into ${run.folder.path}",
        )
        val random = Random(passSeed)
        val startNs = System.nanoTime()
        for (pass in 1..passes) {
            for (arm in arms.shuffled(random)) {
                val folder = if (pass == 1) arm.name else "${arm.name}-r$pass"
                run.record { it.copy(passOrder = it.passOrder + AutobahnManifest.Pass(arm.name, pass, folder)) }
                val passStartNs = System.nanoTime()
                val failure = runPass(arm, File(run.folder, folder), split, flags, jdk)
                val wallSeconds = (System.nanoTime() - passStartNs) / 1e9
                val status = if (failure == null) "ok" else "failed"
                run.record {
                    it.copy(outcomes = it.outcomes + AutobahnManifest.Outcome(arm.name, pass, folder, status, failure, wallSeconds))
                }
                failure?.let { why -> run.problem("$folder: $why") }
                val at = (System.nanoTime() - startNs) / 1e9
                println(
                    "[%d:%02d] %s pass %d: %s in %.0f s".format(
                        Locale.ROOT,
                        at.toLong() / 60,
                        at.toLong() % 60,
                        arm.name,
                        pass,
                        failure ?: "done",
                        wallSeconds,
                    ),
                )
            }
        }
        run.end { problems -> "${problems.size} pass(es) failed: ${problems.joinToString("; ")}" }
    }

    /** One arm's pass: its server started fresh, wstest's cases against it, the server stopped; the reason it failed, or null. */
    private fun runPass(arm: ServerEntry, folder: File, split: CpuSplit?, flags: List<String>, jdk: Provenance.Jdk): String? {
        folder.mkdirs()
        val serverLog = File(folder, "server.log")
        val command = split?.serverCommandPrefix().orEmpty() + listOf(File(jdk.home, "bin/java").path) + flags +
            arm.jarCommand(repo, listOf("--host", "127.0.0.1", "--port", "0", "--max-frame-bytes", "$MAX_FRAME_BYTES"))
        val server = Children.start(command, serverLog, directory = folder)
        try {
            val url = Children.awaitReadyOrNull(server, serverLog, READY_TIMEOUT_S)
                ?: return if (server.isAlive) {
                    "the server printed no READY line within $READY_TIMEOUT_S s; see ${folder.name}/server.log"
                } else {
                    "the server exited (code ${server.waitFor()}) before it was ready; see ${folder.name}/server.log"
                }
            val spec = FuzzingClientSpec.write(folder, arm.name, URI(url), cases)
            val run = Children.start(
                listOf(wstest.path, "-m", "fuzzingclient", "-s", spec.absolutePath),
                File(folder, "wstest.log"),
                directory = folder,
            )
            if (!run.waitFor(passTimeoutMinutes.toLong(), TimeUnit.MINUTES)) {
                Children.stop(run, graceSeconds = 0)
                return "wstest took over $passTimeoutMinutes minutes; see ${folder.name}/wstest.log"
            }
            if (!server.isAlive) return "the server exited (code ${server.exitValue()}) during the cases; see ${folder.name}/server.log"
            // wstest exits 0 whatever its cases gave, and when it could not connect: its index.json is the record.
            if (!File(folder, FuzzingClientSpec.INDEX).isFile) return "wstest wrote no index.json; see ${folder.name}/wstest.log"
            return null
        } finally {
            Children.stop(server, graceSeconds = 10)
        }
    }

    companion object {
        /** The profile whose heap and CPU split the servers get: `make bench`'s default. */
        const val PROFILE = "local"

        /** Section 9 sends messages and frames of up to 16 MiB. */
        const val MAX_FRAME_BYTES = 16 * 1024 * 1024

        const val READY_TIMEOUT_S = 60L
    }
}

// The servers and wstest are stopped by Children's shutdown hook as this JVM exits.
fun main(args: Array<String>): Unit = AutobahnPerfCommand().main(args)
