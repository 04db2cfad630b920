package lab.bench

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.doubleOrNull
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

/**
 * One k6 process driving one server with `loadtests/bench.js`. Its summary (with
 * percentiles up to p99.9) goes to `k6-summary.json` and every sample to `k6-metrics.csv.gz`;
 * while it runs, [live] reads k6's own REST API for the progress line.
 */
class K6Run(
    private val k6: File,
    private val script: File,
    private val plan: K6Plan,
    private val dir: File,
    private val apiPort: Int,
    private val sourceAddresses: Int,
) : AutoCloseable {
    val summaryFile = File(dir, "k6-summary.json")
    private lateinit var process: Process
    private val api = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()

    fun start() {
        val command = buildList {
            addAll(listOf(k6.path, "run", "--quiet", "--no-color", "--address", "127.0.0.1:$apiPort"))
            addAll(listOf("--out", "csv=${File(dir, "k6-metrics.csv.gz").path}"))
            // Past one address's ephemeral ports, k6 spreads its sockets over several loopback sources.
            if (sourceAddresses > 1) addAll(listOf("--local-ips", "127.0.0.1-127.0.0.$sourceAddresses"))
            addAll(listOf("-e", "LAB_PLAN=${Json.encodeToString(K6Plan.serializer(), plan)}"))
            addAll(listOf("-e", "LAB_SUMMARY=${summaryFile.path}"))
            add(script.path)
        }
        process = Children.start(command, File(dir, "k6.log"))
    }

    /**
     * Waits until k6 has initialised its VUs and started the timeline (its REST API says
     * `running`): the moment the profile's phases count from. False if k6 exited or
     * [timeoutSeconds] passed first.
     */
    fun awaitRunning(timeoutSeconds: Long): Boolean {
        val deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(timeoutSeconds)
        while (System.nanoTime() < deadline && process.isAlive) {
            val running = runCatching {
                val response = api.send(
                    HttpRequest.newBuilder(URI("http://127.0.0.1:$apiPort/v1/status")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString(),
                )
                Json.parseToJsonElement(response.body()).jsonObject["data"]?.jsonObject?.get("attributes")?.jsonObject
                    ?.get("running")?.jsonPrimitive?.booleanOrNull
            }.getOrNull()
            if (running == true) return true
            Thread.sleep(STATUS_POLL_MS)
        }
        return false
    }

    /**
     * Dropped iterations of [scenario] stamped at or after [fromEpochSecond], counted from k6's
     * own samples in `k6-metrics.csv.gz` (k6 stamps them in whole seconds).
     */
    fun droppedIterations(scenario: String, fromEpochSecond: Long): Long {
        val csv = File(dir, "k6-metrics.csv.gz")
        if (!csv.isFile) return 0
        return java.util.zip.GZIPInputStream(csv.inputStream()).bufferedReader().useLines { lines ->
            val iterator = lines.iterator()
            if (!iterator.hasNext()) return@useLines 0L
            val header = iterator.next().split(',')
            val time = header.indexOf("timestamp")
            val value = header.indexOf("metric_value")
            val scenarioColumn = header.indexOf("scenario")
            iterator.asSequence().filter { it.startsWith("dropped_iterations,") }.map { it.split(',') }
                .filter { it[scenarioColumn] == scenario && it[time].toLong() >= fromEpochSecond }
                .sumOf { it[value].toDouble().toLong() }
        }
    }

    /** Waits up to [ms] for k6 to finish; true once it has. */
    fun awaitExit(ms: Long): Boolean = process.waitFor(ms, java.util.concurrent.TimeUnit.MILLISECONDS)

    fun exitCode(): Int? = if (process.isAlive) null else process.exitValue()

    /**
     * k6's counts so far. [p95Ms] is over the whole run so far, and p95 because it is the
     * highest percentile k6's REST API serves; the summary has p99 and p99.9.
     */
    data class Live(val requests: Long, val p95Ms: Double?, val socketsOpened: Long, val atNs: Long = System.nanoTime()) {
        /** Requests per second since [before]: the current rate, not the average since the start. */
        fun rateSince(before: Live?): Double =
            if (before == null || atNs == before.atNs) 0.0 else (requests - before.requests) * 1e9 / (atNs - before.atNs)
    }

    /** What k6 has counted so far, or null while its API is not up. */
    fun live(): Live? = try {
        fun metric(name: String): JsonObject? {
            val response = api.send(
                HttpRequest.newBuilder(URI("http://127.0.0.1:$apiPort/v1/metrics/$name")).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.ofString(),
            )
            if (response.statusCode() != 200) return null
            return Json.parseToJsonElement(response.body()).jsonObject["data"]?.jsonObject?.get("attributes")?.jsonObject
                ?.get("sample")?.jsonObject
        }
        val requests = metric("http_reqs")
        val duration = metric("http_req_duration")
        val sockets = metric("lab_sockets_opened")
        Live(
            requests = requests?.get("count")?.jsonPrimitive?.doubleOrNull?.toLong() ?: 0,
            p95Ms = duration?.get("p(95)")?.jsonPrimitive?.doubleOrNull,
            socketsOpened = sockets?.get("count")?.jsonPrimitive?.doubleOrNull?.toLong() ?: 0,
        )
    } catch (e: Exception) {
        null
    }

    private companion object {
        const val STATUS_POLL_MS = 50L
    }

    /** Stops k6 (SIGTERM lets it write its summary) and waits for it. */
    override fun close() {
        if (!::process.isInitialized) return
        if (process.isAlive) Children.stop(process, graceSeconds = 10)
    }
}
