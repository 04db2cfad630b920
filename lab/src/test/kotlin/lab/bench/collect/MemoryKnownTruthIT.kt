package lab.bench.collect

import lab.bench.load.Profile
import lab.handlers.LabJson
import lab.handlers.ServerStats
import lab.handlers.SocketBallast
import lab.support.Catalogue
import lab.support.Children
import lab.support.JvmFlags
import lab.support.Provenance
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.math.abs
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * The memory snapshots held to a known truth. Each server of the catalogue runs three times,
 * with the bench's JVM flags and in a memory group of its own: with no ballast, and with every
 * open socket holding [BALLAST_BYTES] on the heap, then off it in a direct buffer. Each run
 * opens and closes a few sockets (the classes and pools that every socket shares), takes a
 * [MemoryCollector] snapshot, opens [SOCKETS] idle WebSockets, and takes another. A
 * component's growth a socket, less the run without ballast's, must be the ballast within 10%:
 * the live heap for a heap ballast, NMT's Other for a direct one; and the ballast must not show
 * where it is not (an array in NMT's Other, a direct buffer in the live heap).
 *
 * The RSS is printed, not held to the truth: between two snapshots it also moves with what the
 * JIT's arenas, malloc's pools and the heap's first-touched pages hold at the moment, by up to
 * ±15 MB here, which over 400 sockets is ±40 KB a socket, more than half the ballast. NMT's
 * Other is the native figure that finds it. (Over a bench's thousands of sockets the same
 * megabytes are a KB or two a socket.)
 *
 * It fails when the servers do not hold their ballast (checked: with the ballast allocated and
 * dropped, every heap and direct check failed, each growth 0 ± 44 B a socket), and when the
 * collector's live heap or NMT categories are wrong. Measured here (JDK 25 and 21, two runs at
 * a time on 2 busy cores, a minute or so in all): the heap ballast added 65,442–65,652 B of
 * live heap a socket, the direct one 65,516–65,556 B of NMT Other (and 7.5–93 KB of RSS).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MemoryKnownTruthIT {
    private val root = File(System.getProperty("lab.root"))
    private val results = File(System.getProperty("lab.results"), "memory-truth").apply {
        deleteRecursively()
        mkdirs()
    }
    private val serverJdk = File(System.getenv("LAB_SERVER_JDK") ?: fail("set LAB_SERVER_JDK; `make test` does"))
    private val jdkFeature = Provenance.Jdk.read(serverJdk).feature
    private val profile = Profile.load(File(root, "loadtests/profiles"), "smoke")
    private val http = HttpClient.newHttpClient()

    /**
     * What one run measured: each component's growth a socket, the snapshots' socket counts and kernel source, and (in the run
     * without ballast) what a snapshot taken while sockets kept opening did: its error, and the memory.csv rows it added.
     */
    class Run(
        val perSocket: Map<String, Double>,
        val socketsOpen: List<Int>,
        val kernelSource: String,
        val whileOpening: Pair<String?, Int>? = null,
    )

    private lateinit var runs: Map<Pair<String, SocketBallast>, Run>

    /** Two runs at a time, to keep the test short: the live heap and NMT count exactly whatever else runs. */
    @BeforeAll
    fun runEveryServerThreeTimes() {
        val pool = Executors.newFixedThreadPool(2)
        try {
            val started = servers.flatMap { server -> BALLASTS.map { (server to it) to pool.submit<Run> { run(server, it) } } }
            runs = started.associate { (key, run) -> key to run.get() }
        } finally {
            pool.shutdownNow()
        }
    }

    @ParameterizedTest
    @FieldSource("servers")
    fun `a heap ballast of 64 KiB a socket is 64 KiB more live heap a socket, and no more NMT Other`(server: String) {
        assertBallastIn(server, HEAP, MemorySnapshot.LIVE_HEAP)
        assertBallastNotIn(server, HEAP, "nmt_other")
    }

    @ParameterizedTest
    @FieldSource("servers")
    fun `a direct ballast of 64 KiB a socket is 64 KiB more NMT Other a socket, and no more live heap`(server: String) {
        assertBallastIn(server, DIRECT, "nmt_other")
        assertBallastNotIn(server, DIRECT, MemorySnapshot.LIVE_HEAP)
    }

    @ParameterizedTest
    @FieldSource("servers")
    fun `each snapshot counts the sockets the server holds open at that moment`(server: String) {
        for (ballast in BALLASTS) {
            assertEquals(listOf(0, SOCKETS), runs.getValue(server to ballast).socketsOpen)
        }
    }

    @ParameterizedTest
    @FieldSource("servers")
    fun `the kernel's memory is the server's own where a memory group can be made, and the host's elsewhere`(server: String) {
        val run = runs.getValue(server to SocketBallast.NONE)
        val expected = if (run.kernelSource == "cgroup-v1") listOf("kernel_tcp", "kernel") else listOf("kernel_tcp_host")
        assertTrue(run.perSocket.keys.containsAll(expected), "${run.kernelSource}: ${run.perSocket.keys}")
        if (run.kernelSource == "cgroup-v1") {
            assertTrue(run.perSocket.getValue("kernel") > 0, "an open socket's structures are kernel memory: ${run.perSocket}")
        }
    }

    @ParameterizedTest
    @FieldSource("servers")
    fun `a snapshot during which the server's sockets moved is left out, with the counts it saw`(server: String) {
        val (error, rowsAdded) = runs.getValue(server to SocketBallast.NONE).whileOpening!!
        assertTrue(error != null && "open sockets went from" in error, "the snapshot while sockets opened was taken: $error")
        assertEquals(0, rowsAdded, "rows a left-out snapshot wrote to memory.csv")
    }

    private fun assertBallastIn(server: String, ballast: SocketBallast, component: String) {
        val extra = extraPerSocket(server, ballast, component)
        assertTrue(
            abs(extra - BALLAST_BYTES) <= BALLAST_BYTES * TOLERANCE,
            "$server, ${ballast.kind.slug} ballast: $component grew ${extra.toLong()} B a socket more than without, not $BALLAST_BYTES ±10%",
        )
    }

    private fun assertBallastNotIn(server: String, ballast: SocketBallast, component: String) {
        val extra = extraPerSocket(server, ballast, component)
        assertTrue(
            abs(extra) <= BALLAST_BYTES * TOLERANCE,
            "$server, ${ballast.kind.slug} ballast: $component grew ${extra.toLong()} B a socket more than without, not about 0",
        )
    }

    private fun extraPerSocket(server: String, ballast: SocketBallast, component: String): Double =
        runs.getValue(server to ballast).perSocket.getValue(component) -
            runs.getValue(server to SocketBallast.NONE).perSocket.getValue(component)

    /** One server JVM with [ballast]: a snapshot, [SOCKETS] idle sockets opened, and a snapshot with them open. */
    private fun run(server: String, ballast: SocketBallast): Run {
        val entry = Catalogue.named(server)
        val dir = File(results, "$server-${ballast.kind.slug}-${ballast.bytes}").apply { mkdirs() }
        val command = listOf(File(serverJdk, "bin/java").path) + JvmFlags.forServer(HEAP_MB, jdkFeature) + listOf(
            "-jar",
            entry.jarIn(root).path,
            "--port",
            "0",
            "--socket-ballast-bytes",
            "${ballast.bytes}",
            "--socket-ballast",
            ballast.kind.slug,
        )
        KernelMemory.forServer(server).use { kernel ->
            val log = File(dir, "server.log")
            val process = Children.start(kernel.launch(command), log)
            try {
                val url = Children.awaitReady(process, log, 60) ?: fail("$server did not print its READY line; see $log")
                // The first sockets load the classes and fill the pools every later socket shares.
                IdleSockets(url, WARM_UP_SOCKETS).close()
                awaitOpenSockets(url, 0)
                MemoryCollector(process.pid(), url, dir, RunClock(profile), kernel).use { collector ->
                    val before = collector.snapshot()
                    val after = IdleSockets(url, SOCKETS).use {
                        awaitOpenSockets(url, SOCKETS)
                        collector.snapshot()
                    }
                    val perSocket = after.componentBytes.mapValues { (component, bytes) ->
                        (bytes - before.componentBytes.getValue(component)).toDouble() / SOCKETS
                    }
                    val figures = perSocket.mapValues { it.value.toLong() }
                    println("$server, ${ballast.kind.slug} ballast of ${ballast.bytes} B, bytes a socket: $figures")
                    val whileOpening = if (ballast == SocketBallast.NONE) snapshotWhileOpening(collector, url, dir) else null
                    return Run(perSocket, listOf(before.socketsOpen, after.socketsOpen), kernel.source, whileOpening)
                }
            } finally {
                // Nothing is measured at exit: no grace period to wait out.
                Children.stop(process, graceSeconds = 0)
            }
        }
    }

    /**
     * A snapshot taken while sockets open one at a time, [TRICKLE_SOCKETS] of them [TRICKLE_GAP_MS] apart (longer than a
     * snapshot's three jcmd calls and JIT wait take): its error, if it threw, and the rows it added to memory.csv.
     */
    private fun snapshotWhileOpening(collector: MemoryCollector, url: String, dir: File): Pair<String?, Int> {
        val memoryCsv = File(dir, "memory.csv")
        val rowsBefore = memoryCsv.readLines().size
        val trickle = CompletableFuture.supplyAsync { IdleSockets(url, TRICKLE_SOCKETS, TRICKLE_GAP_MS) }
        try {
            awaitOpenSockets(url, 1, atLeast = true)
            val error = runCatching { collector.snapshot() }.exceptionOrNull()?.message
            return error to memoryCsv.readLines().size - rowsBefore
        } finally {
            trickle.get(60, TimeUnit.SECONDS).close()
        }
    }

    /** A server counts a socket once its task runs; the snapshot must see every one. Returns once [expected] are open, or with [atLeast], that many or more. */
    private fun awaitOpenSockets(url: String, expected: Int, atLeast: Boolean = false) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30)
        while (true) {
            val body = http.send(HttpRequest.newBuilder(URI("$url/stats")).build(), HttpResponse.BodyHandlers.ofString()).body()
            val open = LabJson.decode<ServerStats>(body).openSockets
            if (if (atLeast) open >= expected else open == expected) return
            check(System.nanoTime() < deadline) { "$open sockets open after 30 s, not $expected" }
            Thread.sleep(50)
        }
    }

    companion object {
        const val BALLAST_BYTES = 64 * 1024
        const val TOLERANCE = 0.10

        const val SOCKETS = 400
        const val WARM_UP_SOCKETS = 50
        const val TRICKLE_SOCKETS = 200
        const val TRICKLE_GAP_MS = 25L
        const val HEAP_MB = 512
        val HEAP = SocketBallast(BALLAST_BYTES, SocketBallast.Kind.HEAP)
        val DIRECT = SocketBallast(BALLAST_BYTES, SocketBallast.Kind.DIRECT)
        val BALLASTS = listOf(SocketBallast.NONE, HEAP, DIRECT)

        @JvmField
        val servers: List<String> = Catalogue.names
    }
}
