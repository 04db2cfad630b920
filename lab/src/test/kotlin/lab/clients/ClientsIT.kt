package lab.clients

import kotlinx.serialization.json.Json
import lab.clients.probe.ClientKind
import lab.clients.probe.DownloadProbe
import lab.clients.probe.DownloadSample
import lab.clients.probe.ThreadSample
import lab.support.Catalogue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import java.io.File
import java.net.ServerSocket
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * `make clients` as a user runs it, made small (20 calls, one repeat, small bodies): the
 * structural facts of the client-threads article, which hold whatever the machine's speed.
 * A client that blocks a thread a call shows about one thread per call in flight; one that
 * waits suspended shows a handful; every download arrives byte-exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ClientsIT {
    private val root = File(System.getProperty("lab.root"))
    private val results = File(System.getProperty("lab.results"), "clients")
    private val lenient = Json { ignoreUnknownKeys = true }
    private lateinit var runDir: File
    private lateinit var threads: List<ThreadSample>
    private lateinit var downloads: List<DownloadSample>
    private var exitCode = -1

    @BeforeAll
    fun runExperiment() {
        val (code, log) = run(
            "--requests", "$CALLS", "--repeats", "1", "--sizes", SIZES.joinToString(","), "--download-repeats", "1",
            "--streams", "2", "--stream-bytes", "1000000",
        )
        exitCode = code
        runDir =
            results.listFiles().orEmpty().singleOrNull { it.isDirectory }
                ?: fail("no run folder; see $log:\n${log.readText().takeLast(3000)}")
        threads = File(runDir, "threads.jsonl").readLines().map { lenient.decodeFromString(ThreadSample.serializer(), it) }
        downloads = File(runDir, "downloads.jsonl").readLines().map { lenient.decodeFromString(DownloadSample.serializer(), it) }
    }

    @Test
    fun `the run completes and says so in its manifest`() {
        assertEquals(0, exitCode)
        assertTrue(""""status": "complete"""" in File(runDir, "manifest.json").readText())
    }

    @Test
    fun `every client is counted once, with all its calls in flight at the census and none failed`() {
        assertEquals(ClientKind.slugs.sorted(), threads.map { it.client }.sorted())
        threads.forEach {
            assertEquals(CALLS.toLong(), it.inFlightAtCensus, "${it.client}: calls in flight at the census")
            assertEquals(0, it.failedRequests, "${it.client}: ${it.firstError}")
        }
    }

    @ParameterizedTest
    @CsvSource("retrofit", "okhttp", "ktor-okhttp")
    fun `a client on OkHttp's dispatcher blocks a thread for each call in flight`(client: String) {
        val census = threads.single { it.client == client }
        assertTrue(
            census.activeUnparkedNew in CALLS..CALLS + 3,
            "$client: ${census.activeUnparkedNew} new unparked threads for $CALLS calls",
        )
    }

    @ParameterizedTest
    @CsvSource("ktor-java", "ktor-cio", "jdk-httpclient", "retrofit-vthreads", "blocking-vthreads")
    fun `a client whose calls wait suspended or on virtual threads blocks a handful of threads, not one a call`(client: String) {
        val census = threads.single { it.client == client }
        assertTrue(census.activeUnparkedNew <= 4, "$client: ${census.activeUnparkedNew} new unparked threads for $CALLS calls")
    }

    @Test
    fun `every warm-up download of every client from every server arrives byte-exact`() {
        val checked = downloads.filter { it.repeat == 0 && it.client != DownloadProbe.CURL }
        assertEquals(ClientKind.entries.size * Catalogue.servers.size * SIZES.size, checked.size)
        checked.forEach { assertTrue(it.verified && it.exact == true, "${it.client} <- ${it.server} ${it.sizeBytes} B: ${it.error}") }
    }

    @Test
    fun `every timed download, curl's included, receives the whole body`() {
        downloads.filter {
            it.repeat > 0
        }.forEach { assertEquals(it.sizeBytes, it.receivedBytes, "${it.client} <- ${it.server}: ${it.error}") }
    }

    @Test
    fun `no server, stub or probe outlives the run`() {
        val left = ProcessHandle.allProcesses().filter { p -> p.info().commandLine().map { runDir.path in it }.orElse(false) }.toList()
        val servers = runDir.listFiles().orEmpty().filter { it.name.endsWith(".log") }.mapNotNull { log ->
            log.useLines { lines -> lines.firstNotNullOfOrNull(lab.support.ReadyLine::pidIn) }
        }.filter { pid -> ProcessHandle.of(pid).map { it.isAlive }.orElse(false) }
        assertTrue(left.isEmpty() && servers.isEmpty(), "left running: $left $servers")
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
        "--clients, 'okhttp,curlish', unknown client 'curlish'; choose from",
        "--sizes, '80000,big', --sizes: big is not a valid integer",
        "--stub, http://127.0.0.1:DEAD, does not answer",
    )
    fun `bad input is refused in one line, with exit code 2 and no run folder`(option: String, value: String, expected: String) {
        ServerSocket(0).use { dead ->
            // Bound and never accepted: nothing can answer on it while the test runs.
            val (code, log) = run(option, value.replace("DEAD", "${dead.localPort}"), into = "clients-bad-input")
            val output = log.readLines().filterNot { it.startsWith("WARNING") }
            assertEquals(2, code, "$output")
            assertEquals(1, output.size, "one line: $output")
            assertTrue(output.single().startsWith("make clients: ") && expected in output.single(), output.single())
            assertTrue(File(results.parentFile, "clients-bad-input").listFiles().orEmpty().none { it.isDirectory }, "no run folder")
        }
    }

    private fun run(vararg args: String, into: String = "clients"): Pair<Int, File> {
        val dir = File(results.parentFile, into).apply {
            deleteRecursively()
            mkdirs()
        }
        val log = File(dir, "clients.log")
        val process = ProcessBuilder(
            "${env("LAB_HARNESS_JDK")}/bin/java", "-cp", File(root, "lab/target/lab.jar").path, "lab.clients.ClientsMainKt",
            "--jdk", env("LAB_SERVER_JDK"), "--repo", root.path, "--results", dir.path, *args,
        ).redirectErrorStream(true).redirectOutput(log).start()
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroy()
            fail("make clients took over 5 minutes; see $log:\n${log.readText().takeLast(3000)}")
        }
        return process.exitValue() to log
    }

    private fun env(name: String): String = System.getenv(name) ?: fail("set $name; `make test` does")

    private companion object {
        const val CALLS = 20
        val SIZES = listOf(80_000L, 1_000_003L)
    }
}
