package lab.bench

import de.siegmar.fastcsv.reader.CsvReader
import lab.support.Catalogue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.math.abs
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * The memory figures of a bench held to a known truth, through the whole pipeline a user's run
 * takes: the harness starts the server with a socket ballast (every open WebSocket retains
 * exactly [BALLAST_BYTES], on the heap or in a direct buffer whose pages are written), k6 opens
 * the `ballast` profile's idle sockets in steps, the harness takes the memory snapshots, and the
 * analysis (`python -m labanalysis.bench.memory`, the report's own code) fits each component's bytes
 * per socket. Against a run without ballast, the heap ballast must show in the live heap and the
 * direct one in NMT's Other, each within 10%.
 *
 * `lab.bench.collect.MemoryKnownTruthIT` holds the collector alone to the same truth on every
 * server; this one holds the parts between it and the report: the snapshots' timing within the
 * steps, the server's own socket count, the CSV files and the analysis's slope.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class MemoryPipelineIT {
    private val server = Catalogue.names.first()
    private val analysis = File(System.getProperty("lab.root"), "analysis")
    private val python = System.getenv("LAB_PYTHON") ?: fail("set LAB_PYTHON; `make test` does")
    private lateinit var perSocket: Map<String, Map<String, Double>>

    @BeforeAll
    fun runThePipelineWithoutAndWithBallast() {
        val runs = mapOf(
            "none" to emptyList(),
            "heap" to listOf("--socket-ballast-bytes", "$BALLAST_BYTES", "--socket-ballast", "heap"),
            "direct" to listOf("--socket-ballast-bytes", "$BALLAST_BYTES", "--socket-ballast", "direct"),
        )
        perSocket = runs.mapValues { (name, ballast) ->
            val harness = Harness("ballast-$name")
            val exit = harness.await(harness.start("--profile", "ballast", "--servers", server, *ballast.toTypedArray()), minutes = 2)
            assertEquals(0, exit, "the $name run failed; see ${harness.log}:\n${harness.log.readText().takeLast(3000)}")
            assertEquals(listOf("--futex-hash", "global") + ballast, harness.manifest().serverArgs, "the manifest records the ballast")
            bytesPerSocket(harness.runDir())
        }
    }

    @Test
    fun `a heap ballast of 64 KiB a socket shows as 64 KiB more live heap a socket`() {
        assertWithinTenPercent(growth("heap", "live_heap"), "live heap")
    }

    @Test
    fun `a direct ballast of 64 KiB a socket shows as 64 KiB more of NMT's Other a socket, and not in the live heap`() {
        assertWithinTenPercent(growth("direct", "nmt_other"), "NMT Other")
        assertTrue(abs(growth("direct", "live_heap")) < BALLAST_BYTES * 0.1, "live heap grew ${growth("direct", "live_heap")} B a socket")
    }

    private fun growth(ballast: String, component: String): Double {
        fun of(run: String) = perSocket.getValue(run)[component] ?: fail("no $component in the $run run: ${perSocket.getValue(run)}")
        return of(ballast) - of("none")
    }

    private fun assertWithinTenPercent(growth: Double, what: String) {
        println("$server: the ballast's $BALLAST_BYTES B a socket measured as %.0f B of $what".format(java.util.Locale.ROOT, growth))
        assertTrue(abs(growth - BALLAST_BYTES) <= BALLAST_BYTES * 0.1, "$what grew $growth B a socket, not $BALLAST_BYTES within 10%")
    }

    /** The analysis's bytes per socket of each component of the run's one pass. */
    private fun bytesPerSocket(runDir: File): Map<String, Double> {
        val command = listOf(python, "-m", "labanalysis.bench.memory", runDir.absolutePath)
        val process = ProcessBuilder(command).directory(analysis).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val csv = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(2, TimeUnit.MINUTES) && process.exitValue() == 0, "$command failed:\n$csv")
        return CsvReader.builder().ofNamedCsvRecord(csv).stream().toList()
            .associate { it.getField("component") to it.getField("bytes_per_socket").toDouble() }
    }

    companion object {
        const val BALLAST_BYTES = 64 * 1024
    }
}
