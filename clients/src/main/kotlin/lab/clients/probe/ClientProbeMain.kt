package lab.clients.probe

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.core.subcommands
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import lab.support.LabMain
import java.io.File
import kotlin.random.Random

/**
 * The JVM the clients run in, started by `make clients` (lab.clients.ClientsMain) with
 * the servers and the stub already up. Nothing else runs here, so every thread a census finds
 * is the client's, the JVM's, or a shared pool's. Each measurement is one JSON line, written
 * as soon as it is made, so a run cut short keeps what it measured.
 */
private class ProbeCommand : CliktCommand(name = "client-probe") {
    override fun help(context: Context) = "Measures HTTP clients: threads blocked by delayed calls, and download speed."

    override fun run() = Unit
}

private val json = Json { encodeDefaults = true }

/** One measurement, one line, written as soon as it is made: a run cut short keeps every line before the cut. */
private fun <T> File.appendJsonLine(serializer: KSerializer<T>, value: T) = appendText(json.encodeToString(serializer, value) + "\n")

private class ThreadsCommand : CliktCommand(name = "threads") {
    private val stub by option("--stub", help = "the stub's URL; it must answer after --delay-ms").required()
    private val delayMs by option(
        "--delay-ms",
        help = "the stub's answer delay",
    ).long().restrictTo(ThreadAudit.DELAY_MS_RANGE).default(2_000)
    private val clients by clientsOption()
    private val requests by option("--requests", help = "concurrent calls, comma-separated").int().split(",").default(listOf(100, 500))
    private val repeats by option("--repeats").int().restrictTo(1..100).default(10)
    private val seed by option("--seed", help = "for the random order of clients").long().default(1)
    private val out by option("--out", help = "the JSON-lines file to append to").file().required()

    override fun run() {
        if (requests.any {
                it !in 1..ThreadAudit.MAX_REQUESTS
            }
        ) {
            throw UsageError("--requests must be between 1 and ${ThreadAudit.MAX_REQUESTS}, got $requests")
        }
        StubCalls.read(stub)
        val audit = ThreadAudit(stub, delayMs)
        val random = Random(seed)
        // The warm-up loads and JIT-compiles each client's code, and starts the shared pools, before any census.
        clients.forEach { audit.measure(it, WARMUP_REQUESTS, repeat = 0, position = 0) }
        val total = repeats * requests.size * clients.size
        var done = 0
        for (repeat in 1..repeats) {
            for (n in requests) {
                clients.shuffled(random).forEachIndexed { index, kind ->
                    val sample = audit.measure(kind, n, repeat, index + 1)
                    out.appendJsonLine(ThreadSample.serializer(), sample)
                    done++
                    println(
                        "[$done/$total] ${kind.slug} x$n (repeat $repeat): ${sample.activeUnparkedNew} new unparked threads, " +
                            "${sample.inFlightAtCensus} in flight, ${"%.2f".format(sample.wallMs / 1000)} s" +
                            (sample.firstError?.let { ", FAILED ${sample.failedRequests}: $it" } ?: "") +
                            (if (sample.leftBehind.isNotEmpty()) ", left behind: ${sample.leftBehind}" else ""),
                    )
                }
            }
        }
    }

    companion object {
        const val WARMUP_REQUESTS = 20
    }
}

private class DownloadsCommand : CliktCommand(name = "downloads") {
    private val servers by option("--server", help = "name=url=pid of a running server; repeat for each").convert { spec ->
        val parts = spec.split('=', limit = 3)
        if (parts.size != 3 || parts[2].toLongOrNull() == null) fail("expected name=url=pid, got '$spec'")
        Triple(parts[0], parts[1], parts[2].toLong())
    }.multiple(required = true)
    private val clients by clientsOption()
    private val sizes by option("--sizes", help = "body sizes in bytes, comma-separated").long().split(",").required()
    private val repeats by option("--repeats").int().restrictTo(1..100).default(3)
    private val streams by option("--streams", help = "concurrent downloads from each server").int().restrictTo(0..64).default(4)
    private val streamBytes by option("--stream-bytes", help = "size of each concurrent download").long().default(128L shl 20)
    private val timeoutMs by option("--timeout-ms", help = "the longest one download may take").long().default(120_000)
    private val seed by option("--seed").long().default(1)
    private val out by option("--out", help = "the folder to write downloads.jsonl and concurrent.jsonl to").file().required()

    override fun run() {
        if (sizes.any { it !in 1..MAX_BYTES }) throw UsageError("--sizes must be between 1 and $MAX_BYTES bytes, got $sizes")
        out.mkdirs()
        val probe = DownloadProbe(timeoutMs)
        val random = Random(seed)
        val downloads = File(out, "downloads.jsonl")
        fun record(sample: DownloadSample) {
            downloads.appendJsonLine(DownloadSample.serializer(), sample)
            println(
                "  ${sample.client} <- ${sample.server} ${sample.sizeBytes} B (repeat ${sample.repeat}): " +
                    (sample.error ?: "${"%.1f".format(sample.mbPerSecond)} MB/s${if (sample.verified) ", byte-exact" else ""}"),
            )
        }
        for (repeat in 0..repeats) {
            println("downloads, ${if (repeat == 0) "warm-up (each body checked byte by byte)" else "repeat $repeat of $repeats"}")
            for ((server, url, _) in servers.shuffled(random)) {
                for (kind in clients.shuffled(random)) {
                    kind.open(1).use { client -> sizes.forEach { record(probe.download(kind, client, server, url, it, repeat)) } }
                }
                sizes.forEach { record(probe.curl(server, url, it, repeat)) }
            }
        }
        if (streams == 0) return
        val concurrent = ConcurrentDownloads(timeoutMs)
        for (repeat in 1..repeats) {
            for ((server, url, pid) in servers.shuffled(random)) {
                val sample = concurrent.measure(server, url, pid, streams, streamBytes, repeat)
                File(out, "concurrent.jsonl").appendJsonLine(ConcurrentSample.serializer(), sample)
                val rate = "${"%.1f".format(sample.mbPerSecond)} MB/s"
                val cost = "server CPU ${sample.serverCpuMs} ms, threads ${sample.serverThreadsBefore} -> peak ${sample.serverThreadsPeak}"
                println("  $streams x $streamBytes B at once <- $server (repeat $repeat): ${sample.error ?: "$rate, $cost"}")
            }
        }
    }

    companion object {
        /** The servers' own bound on `/bytes` (lab.handlers.Limits.maxBytes). */
        val MAX_BYTES = lab.handlers.Limits().maxBytes
    }
}

fun main(args: Array<String>): Unit =
    LabMain.exit("client-probe", ProbeCommand().subcommands(ThreadsCommand(), DownloadsCommand()), args, badInput = {
        it is StubUnreachable
    })
