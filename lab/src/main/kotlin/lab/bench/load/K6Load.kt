package lab.bench.load

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.doubleOrNull
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import lab.support.sendWithin
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Path
import java.time.Duration

/**
 * The load on one server: one k6 beside it ([K6Run]) or one k6 per load generator, each
 * running its execution segment ([K6Segments]). Either way, once [collect] has run, the
 * server's folder holds one `k6-summary.json` and one `k6-metrics.csv.gz` for all of it, and each
 * k6's dashboard export ([K6Dashboard]).
 */
interface K6Load : AutoCloseable {
    val summaryFile: File

    /** Starts k6, paused once its VUs are initialised: nothing reaches the server until [awaitRunning]. */
    fun start()

    /**
     * Lets the paused k6 begin the profile's timeline, once its VUs are initialised; true once the timeline has started, false if
     * k6 exited or [timeoutSeconds] passed first.
     */
    fun awaitRunning(timeoutSeconds: Long): Boolean

    /** Waits up to [ms] for the load to end; true once it has. */
    fun awaitExit(ms: Long): Boolean

    /** k6's exit code once the load has ended (the first failing segment's, for several). */
    fun exitCode(): Int?

    /** The k6 process on this host, for its CPU; null where k6 runs on load generators. */
    val localPid: Long? get() = null

    /** k6's live web dashboard on this host's loopback, once it listens; null where k6 runs on load generators. */
    val dashboardUrl: String? get() = null

    /** What k6 has counted so far, or null while its API is not up. */
    fun live(): Live?

    /** After the load ended: brings its figures into the server's folder. */
    fun collect() {}

    /**
     * k6's counts so far. [p95Ms] is over the whole run so far, and p95 because it is the
     * highest percentile k6's REST API serves; the summary has p99 and p99.9.
     */
    data class Live(val requests: Long, val p95Ms: Double?, val socketsOpened: Long, val atNs: Long = System.nanoTime()) {
        /** Requests per second since [before]: the current rate, not the average since the start. */
        fun rateSince(before: Live?): Double =
            if (before == null || atNs == before.atNs) 0.0 else (requests - before.requests) * 1e9 / (atNs - before.atNs)
    }

    companion object {
        /**
         * Dropped iterations of [scenario] stamped at or after [fromEpochSecond] and before
         * [untilEpochSecond] (the same scenario goes on to the curve's steps), counted from k6's
         * own samples in [dir]'s `k6-metrics.csv.gz` (k6 stamps them in whole seconds). Calibration
         * decides on it during the run; the report counts with labanalysis.bench.latency.dropped_iterations,
         * the same rule; both are held to one fixture's counts (analysis/tests/fixtures/dropped-iterations).
         */
        fun droppedIterations(dir: File, scenario: String, fromEpochSecond: Long, untilEpochSecond: Long = Long.MAX_VALUE): Long {
            val csv = File(dir, K6Samples.FILE)
            if (!csv.isFile) return 0
            return java.util.zip.GZIPInputStream(csv.inputStream()).bufferedReader().useLines { lines ->
                val iterator = lines.iterator()
                if (!iterator.hasNext()) return@useLines 0L
                val header = iterator.next().split(',')
                val time = header.indexOf("timestamp")
                val value = header.indexOf("metric_value")
                val scenarioColumn = header.indexOf("scenario")
                iterator.asSequence().filter { it.startsWith("dropped_iterations,") }.map { it.split(',') }
                    .filter { it[scenarioColumn] == scenario && it[time].toLong() in fromEpochSecond until untilEpochSecond }
                    .sumOf { it[value].toDouble().toLong() }
            }
        }
    }
}

/**
 * k6's REST API: its status, and the counts behind the progress line. It is on a loopback port
 * for a k6 beside the harness ([onPort]), and behind a socket file that SSH forwards for a k6 on
 * a load generator ([onUnixSocket]).
 */
class K6Api private constructor(private val exchange: (method: String, path: String, body: String?, timeout: Duration) -> Answer) {
    private data class Answer(val status: Int, val body: String)

    /** [phase] is k6's execution status: 4 is initialised and held by `--paused`, 7 running. */
    data class Status(val running: Boolean, val phase: Int)

    fun status(): Status? = runCatching {
        val attributes = get("status")?.get("attributes")?.jsonObject ?: return null
        Status(
            running = attributes["running"]?.jsonPrimitive?.booleanOrNull == true,
            phase = attributes["status"]?.jsonPrimitive?.intOrNull ?: -1,
        )
    }.getOrNull()

    /** Polls until [condition] holds of k6's status; false if [alive] turns false or [timeoutSeconds] pass first. */
    fun await(timeoutSeconds: Long, alive: () -> Boolean, condition: (Status) -> Boolean): Boolean {
        val deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(timeoutSeconds)
        while (System.nanoTime() < deadline && alive()) {
            if (status()?.let(condition) == true) return true
            Thread.sleep(STATUS_POLL_MS)
        }
        return false
    }

    /** Lets a k6 started with `--paused` begin its timeline. */
    fun resume(): Boolean = runCatching {
        val body = """{"data":{"type":"status","id":"default","attributes":{"paused":false}}}"""
        exchange("PATCH", "status", body, Duration.ofSeconds(5)).status == 200
    }.getOrDefault(false)

    fun live(): K6Load.Live? = try {
        fun sample(name: String): JsonObject? = get("metrics/$name")?.get("attributes")?.jsonObject?.get("sample")?.jsonObject
        val requests = sample("http_reqs")
        val duration = sample("http_req_duration")
        val sockets = sample("lab_sockets_opened")
        K6Load.Live(
            requests = requests?.get("count")?.jsonPrimitive?.doubleOrNull?.toLong() ?: 0,
            p95Ms = duration?.get("p(95)")?.jsonPrimitive?.doubleOrNull,
            socketsOpened = sockets?.get("count")?.jsonPrimitive?.doubleOrNull?.toLong() ?: 0,
        )
    } catch (e: Exception) {
        null
    }

    private fun get(path: String): JsonObject? {
        val answer = exchange("GET", path, null, Duration.ofSeconds(2))
        if (answer.status != 200) return null
        return Json.parseToJsonElement(answer.body).jsonObject["data"]?.jsonObject
    }

    companion object {
        private const val STATUS_POLL_MS = 50L

        /** k6's execution status while `--paused` holds it after initialising its VUs. */
        const val PAUSED_BEFORE_RUN = 4

        /** A k6 listening on [port] of 127.0.0.1. */
        fun onPort(port: Int): K6Api {
            val client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()
            return K6Api { method, path, body, timeout ->
                val publisher = body?.let { HttpRequest.BodyPublishers.ofString(it) } ?: HttpRequest.BodyPublishers.noBody()
                val request = HttpRequest.newBuilder(
                    URI("http://127.0.0.1:$port/v1/$path"),
                ).timeout(timeout).method(method, publisher).build()
                val response = client.sendWithin(request, HttpResponse.BodyHandlers.ofString())
                Answer(response.statusCode(), response.body())
            }
        }

        /** A k6 whose API is forwarded to the socket file [socket]. */
        fun onUnixSocket(socket: Path): K6Api = K6Api { method, path, body, timeout ->
            UnixSocketHttp.exchange(socket, method, "/v1/$path", body, timeout).let { Answer(it.status, it.body) }
        }
    }
}
