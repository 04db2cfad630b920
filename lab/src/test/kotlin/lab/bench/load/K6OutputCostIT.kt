package lab.bench.load

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.double
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import lab.bench.host.CpuSplit
import lab.support.Catalogue
import lab.support.Children
import lab.support.ProcView
import lab.support.Provenance
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.Locale
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * What k6's own outputs cost the latency it reports (issue #32): `/json` alone at [RATE]/s,
 * interleaved over [PASSES] passes, with no output, with every sample written at k6's default
 * interval (once a second), at the lab's ([K6Samples.SAVE_INTERVAL]), and with the lab's outputs
 * as a bench has them (those samples and k6's web dashboard, [K6Dashboard]).
 *
 * It holds the lab's interval to what it is for: k6's p99 lower than with k6's default (by
 * probes here, 8-15 ms against 48-71 ms, with 4-12 ms with no output). Every run's figures go to
 * `results.csv` in [dir] and are printed; the issue's bound, the lab's outputs within 1.5 times no
 * output, is not yet met (the dashboard costs more), so it is printed, not asserted.
 *
 * The server is the catalogue's virtual-thread one on its own CPU, k6 on the other, as in a bench,
 * but with no garbage collector (Epsilon, a heap the whole test fits in): a ZGC cycle on the
 * server's one CPU took 130-760 ms and put up to 240 ms into k6's p99 of a run it fell in, which
 * would measure the server's collector rather than k6's outputs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class K6OutputCostIT {
    private val root = File(System.getProperty("lab.root"))
    private val dir = File(System.getProperty("lab.results"), "k6-output-cost")
    private val k6 = System.getenv("LAB_K6") ?: fail("set LAB_K6 to k6's path; `make test` does")
    private val split = CpuSplit.forThisHost(serverCpuCount = 1)
    private lateinit var server: Process
    private lateinit var baseUrl: String
    private val runs = mutableListOf<Run>()

    /** What k6 is told to write besides its summary. */
    private enum class Outputs(val slug: String) {
        NONE("none"),
        SAMPLES_AT_K6_DEFAULT("samples-1s"),
        SAMPLES("samples"),
        LAB("samples+dashboard"),
    }

    private data class Run(val outputs: Outputs, val pass: Int, val p99Ms: Double, val dropped: Double, val k6CpuMs: Long)

    @BeforeAll
    fun measure() {
        dir.deleteRecursively()
        dir.mkdirs()
        val jdk = Provenance.Jdk.read(File(System.getenv("LAB_SERVER_JDK") ?: fail("set LAB_SERVER_JDK; `make test` does")))
        val entry = Catalogue.servers.first { it.model == "virtual" }
        val command = split?.serverCommandPrefix().orEmpty() + listOf(File(jdk.home, "bin/java").path) + NO_GC +
            listOfNotNull(split?.activeProcessorCountFlag) +
            listOf("-jar", entry.jarIn(root).path, "--host", "127.0.0.1", "--port", "0", "--downstream-url", "http://127.0.0.1:9")
        server = Children.start(command, File(dir, "server.log"))
        baseUrl = Children.awaitReady(server, File(dir, "server.log"), 60) ?: fail("the server did not start; see $dir/server.log")

        // The server's /json path compiled before anything is measured.
        k6Run("warmup", Outputs.NONE, WARMUP_SECONDS)
        for (pass in 1..PASSES) {
            // Each pass starts one later in the list, so no output always follows the same other.
            val order = Outputs.entries.let { it.drop(pass % it.size) + it.take(pass % it.size) }
            for (outputs in order) runs += k6Run("${outputs.slug}-$pass", outputs, SECONDS).copy(pass = pass)
        }
        File(dir, "results.csv").writeText(
            "outputs,rate_per_s,pass,k6_p99_ms,dropped_iterations,k6_cpu_ms\n" +
                runs.joinToString("") { "${it.outputs.slug},$RATE,${it.pass},${it.p99Ms},${it.dropped},${it.k6CpuMs}\n" },
        )
        for (outputs in Outputs.entries) {
            println(
                "k6 at %,d/s, %s: p99 %.1f ms, CPU %.0f µs a request (medians of %d passes)".format(
                    Locale.ROOT,
                    RATE,
                    outputs.slug,
                    p99(outputs),
                    median(runs.filter { it.outputs == outputs }.map { it.k6CpuMs * 1e3 }) / (RATE * SECONDS),
                    PASSES,
                ),
            )
        }
    }

    @AfterAll
    fun stop() {
        if (::server.isInitialized) Children.stop(server, graceSeconds = 5)
    }

    @Test
    fun `written every 100 ms, k6's samples cost its p99 less than written once a second, k6's default`() {
        val lab = p99(Outputs.SAMPLES)
        val default = p99(Outputs.SAMPLES_AT_K6_DEFAULT)
        assertTrue(
            lab < default,
            "k6's p99 at %,d/s: %.1f ms with samples every 100 ms, %.1f ms every second; see %s"
                .format(Locale.ROOT, RATE, lab, default, File(dir, "results.csv")),
        )
    }

    @Test
    fun `the offered rate is held, whatever k6 writes`() {
        for (run in runs) assertEquals(0.0, run.dropped, "dropped iterations: $run")
    }

    private fun p99(outputs: Outputs) = median(runs.filter { it.outputs == outputs }.map { it.p99Ms })

    private fun k6Run(name: String, outputs: Outputs, seconds: Int): Run {
        val out = File(dir, name).apply { mkdirs() }
        val summary = File(out, "k6-summary.json")
        val samples = File(out, K6Samples.FILE).path
        val output = when (outputs) {
            Outputs.NONE -> emptyList()
            Outputs.SAMPLES_AT_K6_DEFAULT -> listOf("--out", "csv=$samples")
            Outputs.SAMPLES, Outputs.LAB -> listOf("--out", K6Samples.outArgument(samples))
        }
        val command = split?.let { listOf("taskset", "-c", CpuSplit.cpuList(it.loadCpus)) }.orEmpty() +
            listOf(k6, "run", "--quiet", "--no-color", "--no-usage-report", "--address", "127.0.0.1:0") + output +
            listOf(
                "-e", "LAB_RATE=$RATE", "-e", "LAB_SECONDS=$seconds", "-e", "LAB_VUS=${K6Plan.vusFor(RATE)}",
                "-e", "LAB_BASE=$baseUrl", "-e", "LAB_SUMMARY=${summary.path}", File(root, SCRIPT).path,
            )
        val environment = if (outputs == Outputs.LAB) K6Dashboard.environment(K6Dashboard.exportIn(out).path) else emptyMap()
        val process = Children.start(command, File(out, "k6.log"), environment = environment)
        // k6's CPU, read until it exits: /proc forgets a process once it has been reaped.
        val proc = ProcView(process.pid())
        var cpuMs = 0L
        val deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + K6_START_BUDGET_S.toLong())
        while (!process.waitFor(200, TimeUnit.MILLISECONDS)) {
            proc.cpuMs()?.let { cpuMs = it }
            if (System.nanoTime() > deadlineNs) {
                Children.stop(process, graceSeconds = 5)
                fail("k6 ran past ${seconds + K6_START_BUDGET_S} s; see ${File(out, "k6.log")}")
            }
        }
        assertEquals(0, process.exitValue(), "k6 failed; see ${File(out, "k6.log")}")
        val metrics = Json.parseToJsonElement(summary.readText()).jsonObject.getValue("metrics").jsonObject
        fun value(metric: String, stat: String) =
            metrics[metric]?.jsonObject?.get("values")?.jsonObject?.get(stat)?.jsonPrimitive?.double ?: 0.0
        return Run(outputs, 0, value("http_req_duration{endpoint:json}", "p(99)"), value("dropped_iterations", "count"), cpuMs)
    }

    private fun median(values: List<Double>): Double = values.sorted().let { (it[(it.size - 1) / 2] + it[it.size / 2]) / 2 }

    private companion object {
        const val SCRIPT = "loadtests/k6-output-cost.js"

        /**
         * 1,000/s: at 2,000/s k6 stalls on its own, with no output and a server with no collector
         * (p99 230-340 ms with its 2,000 VUs, 27-29 ms with 200), which would hide what the outputs cost.
         */
        const val RATE = 1_000
        const val PASSES = 3
        const val SECONDS = 12
        const val WARMUP_SECONDS = 10
        const val K6_START_BUDGET_S = 60

        /** Epsilon never collects: 6 GiB, touched up front, holds the whole test's garbage (about 8 MB a second at 1,000/s). */
        val NO_GC = listOf("-Xms6g", "-Xmx6g", "-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC", "-XX:+AlwaysPreTouch")
    }
}
