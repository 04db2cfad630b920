package lab.clients

import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.clients.probe.ClientKind
import lab.clients.probe.StubCalls
import lab.clients.probe.StubUnreachable
import lab.clients.probe.ThreadAudit
import lab.clients.probe.clientsOption
import lab.experiment.BadInput
import lab.experiment.ExperimentMain
import lab.handlers.Limits
import lab.support.Children
import lab.support.JvmFlags
import lab.support.Provenance
import lab.support.RunFolder
import lab.support.Stub
import lab.support.serversOption
import java.io.File

/**
 * `make clients`: the client experiments of the client-threads and large-downloads articles.
 * It starts the stub (answering after `--delay-ms`) and the servers, then the client probe
 * (lab.clients.probe.ClientProbeMain) in a JVM of its own, twice: the thread census, then the
 * downloads. Everything lands in `results/<time>-clients/`, line by line as it is measured.
 */
private class ClientsCommand : ExperimentMain("clients") {
    override fun help(context: Context) = "How many threads each HTTP client blocks, and how fast each one downloads."

    private val servers by serversOption()
    private val clients by clientsOption()
    private val jdk by option("--jdk", help = "the JDK home the servers and the clients run on").file().jdk().required()
    private val requests by option("--requests", help = "concurrent delayed calls, comma-separated").int().split(",")
        .default(listOf(100, 500))
    private val delayMs by option(
        "--delay-ms",
        help = "how long the stub takes to answer",
    ).long().restrictTo(ThreadAudit.DELAY_MS_RANGE).default(2_000)
    private val repeats by option(
        "--repeats",
        help = "of the thread census, each in a new random order",
    ).int().restrictTo(1..100).default(10)
    private val sizes by option("--sizes", help = "download sizes in bytes, comma-separated").long().split(",")
        .default(listOf(80_000, 7_000_000, 30_000_000, 128L shl 20))
    private val downloadRepeats by option("--download-repeats").int().restrictTo(1..100).default(3)
    private val streams by option("--streams", help = "concurrent large downloads from each server; 0 for none").int().restrictTo(0..64)
        .default(4)
    private val streamBytes by option("--stream-bytes", help = "size of each concurrent download").long().default(128L shl 20)
    private val stub by option("--stub", help = "a running stub to call instead of starting one; it must answer after --delay-ms")
    private val seed by option("--seed", help = "for the random orders").long().default(System.currentTimeMillis())

    override fun run() {
        checkInputs()
        val flags = JvmFlags.common(HEAP_MB, jdk.feature)
        val run = startRun("clients", ClientsManifest.serializer(), firstManifest(jdk, flags))
        println(
            "clients: ${clients.size} clients, servers ${servers.joinToString {
                it.name
            }}, JDK ${jdk.version}, into ${run.folder.path}",
        )
        try {
            val java = File(jdk.home, "bin/java").path
            val stubUrl = stub?.let { Started(it, null) }
                ?: start("stub", Stub.command(java, repo, delayMs), run.folder)
            val running = servers.associate { server ->
                val command = listOf(java) + flags + server.jarCommand(repo, listOf("--port", "0", "--downstream-url", stubUrl.url))
                server.name to start(server.name, command, run.folder)
            }
            run.record { it.copy(stubUrl = stubUrl.url, servers = running.mapValues { it.value.url }) }
            val probe = listOf(java) + flags + listOf("-cp", File(repo, "lab/target/lab.jar").path, "lab.clients.probe.ClientProbeMainKt")
            (census(probe, stubUrl.url, run.folder) + downloads(probe, running, run.folder)).forEach { run.problem(it) }
            // A server that died mid-run is data: its downloads failed, and the manifest says why.
            running.forEach { (name, server) ->
                val process = server.process!!
                if (!process.isAlive) run.problem("$name exited with code ${process.exitValue()} during the run; see $name.log")
            }
            (running.values + stubUrl).forEach { started -> started.process?.let { Children.stop(it, graceSeconds = 10) } }
        } catch (e: IllegalStateException) {
            run.problem(e.message ?: "$e")
        }
        run.end { problems -> "${problems.size} part(s) of the run failed; what ran is in ${run.folder.path}" }
    }

    /** The options checked against each other and the machine, before anything starts. */
    private fun checkInputs() {
        val maxBytes = Limits().maxBytes
        (sizes + streamBytes).firstOrNull { it !in 1..maxBytes }?.let { throw UsageError("sizes must be 1 to $maxBytes bytes, got $it") }
        val most = ThreadAudit.MAX_REQUESTS
        if (requests.any { it !in 1..most }) throw UsageError("--requests must be 1 to $most each, got $requests")
        try {
            stub?.let { url -> StubCalls.read(url) }
        } catch (e: StubUnreachable) {
            throw BadInput(e.message ?: "--stub: $stub does not answer")
        }
        requireBuilt(listOf(File(repo, Stub.JAR)) + servers.map { it.jarIn(repo) } + File(repo, "lab/target/lab.jar"))
    }

    private fun firstManifest(jdk: Provenance.Jdk, flags: List<String>) = ClientsManifest(
        provenance = provenance(jdk),
        jvmFlags = flags,
        curlVersion = RunFolder.commandText("curl", "--version").lineSequence().first().trim(),
        clientWaits = ClientKind.entries.associate { it.slug to it.waits },
        settings = ClientsManifest.Settings(
            servers = servers.map { it.name },
            clients = clients.map { it.slug },
            requests = requests, delayMs = delayMs, repeats = repeats, sizesBytes = sizes,
            downloadRepeats = downloadRepeats, streams = streams, streamBytes = streamBytes, seed = seed,
        ),
    )

    /** The probe's options for every one of its runs. */
    private val common: List<String> get() = listOf("--clients", clients.joinToString(",") { it.slug }, "--seed", "$seed")

    /** The thread census, through the [probe] JVM; what went wrong, if anything. */
    private fun census(probe: List<String>, stubUrl: String, dir: File): List<String> {
        println("threads: ${clients.size} clients x ${requests.joinToString("/")} calls, each answered after $delayMs ms, $repeats repeats")
        val census = listOf("threads", "--stub", stubUrl, "--delay-ms", "$delayMs", "--requests", requests.joinToString(","))
        val exit = follow(
            probe + census + common + listOf("--repeats", "$repeats", "--out", File(dir, "threads.jsonl").path),
            File(dir, "probe-threads.log"),
        )
        return if (exit != 0) listOf("the thread census exited with code $exit; see probe-threads.log") else emptyList()
    }

    /** The downloads from each [running] server, and curl's, through the [probe] JVM; what went wrong, if anything. */
    private fun downloads(probe: List<String>, running: Map<String, Started>, dir: File): List<String> {
        val sizesText = sizes.joinToString { "$it B" }
        println("downloads: $sizesText from ${servers.joinToString { it.name }}, $downloadRepeats repeats, and curl")
        val downloads =
            listOf("downloads", "--sizes", sizes.joinToString(","), "--streams", "$streams", "--stream-bytes", "$streamBytes") +
                running.flatMap { (name, server) -> listOf("--server", "$name=${server.url}=${server.process!!.pid()}") }
        val exit = follow(
            probe + downloads + common + listOf("--repeats", "$downloadRepeats", "--out", dir.path),
            File(dir, "probe-downloads.log"),
        )
        return if (exit != 0) listOf("the downloads exited with code $exit; see probe-downloads.log") else emptyList()
    }

    /** A program of the run and its URL; no process for a stub the user runs. */
    private class Started(val url: String, val process: Process?)

    private fun start(name: String, command: List<String>, dir: File): Started {
        val log = File(dir, "$name.log")
        val process = Children.start(command, log)
        val url =
            Children.awaitReadyOrNull(process, log, timeoutSeconds = 60)
                ?: throw IllegalStateException("$name did not start; see ${log.path}")
        return Started(url, process)
    }

    /** Runs [command] to its end, its output going to [log] and, line by line, to the terminal; returns its exit code. */
    private fun follow(command: List<String>, log: File): Int {
        val process = Children.start(command, log)
        var printed = 0
        fun echo() {
            val lines = log.readLines()
            lines.drop(printed).forEach { println("  $it") }
            printed = lines.size
        }
        while (process.isAlive) {
            Thread.sleep(500)
            echo()
        }
        echo()
        return process.exitValue()
    }

    companion object {
        /** The heap of every JVM here, servers and probe alike: room for 500 calls in flight and bodies streamed through. */
        const val HEAP_MB = 1024
    }
}

// The stub and the servers are stopped by Children's shutdown hook as the JVM exits.
fun main(args: Array<String>): Unit = ClientsCommand().main(args)
