package lab.io

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.double
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.io.File
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * `make io-bench` end to end: the real shaded jar, started as its own process on the test's JDK, with 1 MiB
 * per op and one warmup and one iteration, so every benchmark runs and checks its byte count in seconds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IoBenchIT {
    private val jar = File(System.getProperty("io.bench.jar") ?: "target/io-bench.jar")
    private val smallSizeBytes = 1_048_576L

    /** One run shared by the tests that read its output: each JMH run forks eight JVMs. */
    private val smallRun by lazy { run("--size-bytes", "$smallSizeBytes", "--warmups", "1", "--iterations", "1") }

    @Test
    fun `a small run of every benchmark exits 0`() {
        assertEquals(0, smallRun.exitCode, smallRun.output)
    }

    @Test
    fun `jmh json has all eight benchmarks, each with a positive time at the size asked`() {
        val results = smallRun.jmhResults()
        val names = results.map { it.getValue("benchmark").jsonPrimitive.content.substringAfter("lab.io.") }
        assertEquals(EXPECTED_BENCHMARKS, names.sorted())
        results.forEach { result ->
            assertEquals("$smallSizeBytes", result.getValue("params").jsonObject.getValue("sizeBytes").jsonPrimitive.content)
            val scoreMs = result.getValue("primaryMetric").jsonObject.getValue("score").jsonPrimitive.double
            assertTrue(scoreMs > 0, "${result["benchmark"]}: score $scoreMs")
        }
    }

    @Test
    fun `jmh json has allocated bytes per op for every benchmark`() {
        smallRun.jmhResults().forEach { result ->
            val secondary = result.getValue("secondaryMetrics").jsonObject
            assertTrue(JmhSuite.ALLOCATED_BYTES_PER_OP_METRIC in secondary, "${result["benchmark"]}: ${secondary.keys}")
        }
    }

    @Test
    fun `io-bench json records the size, the forked JVM flags and where the run came from`() {
        val manifest = Json.parseToJsonElement(File(smallRun.out, "io-bench.json").readText()).jsonObject
        assertEquals(smallSizeBytes, manifest.getValue("sizeBytes").jsonPrimitive.long)
        assertEquals(ForkedJvm.flags(), manifest.getValue("forkedJvmFlags").jsonArray.map { it.jsonPrimitive.content })
        val provenance = manifest.getValue("provenance").jsonObject
        assertEquals("complete", provenance.getValue("status").jsonPrimitive.content)
        assertTrue(provenance.getValue("gitCommit").jsonPrimitive.content.matches(Regex("[0-9a-f]{40}")), "$provenance")
        assertTrue(provenance.getValue("host").jsonObject.getValue("cpus").jsonPrimitive.long > 0, "$provenance")
        assertEquals(Runtime.version().feature().toLong(), provenance.getValue("jdk").jsonObject.getValue("feature").jsonPrimitive.long)
    }

    @Test
    fun `a size that is not a number is refused in one line with exit code 2`() {
        val run = run("--size-bytes", "abc")
        val lines = run.output.lines().filter { it.isNotBlank() && !it.startsWith("WARNING") }
        assertEquals(2, run.exitCode, run.output)
        assertEquals(1, lines.size, "one line: $lines")
        assertTrue("--size-bytes" in lines.single(), lines.single())
    }

    private val outDirs = mutableListOf<File>()

    @AfterAll
    fun deleteOutput() {
        outDirs.forEach { it.deleteRecursively() }
    }

    /** Runs the jar into a new temp folder with [args] after `--out`, and waits for it to exit. */
    private fun run(vararg args: String): Run {
        val out = Files.createTempDirectory("io-bench-it-").toFile().also { outDirs += it }
        val log = File(out, "io-bench.out")
        val java = File(System.getProperty("java.home"), "bin/java").path
        val process =
            ProcessBuilder(listOf(java, "-jar", jar.path, "--out", out.path) + args)
                .redirectErrorStream(true)
                .redirectOutput(log)
                .start()
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            error("io-bench did not finish within $TIMEOUT_SECONDS s: ${log.readText()}")
        }
        return Run(out, process.exitValue(), log.readText())
    }

    private class Run(
        val out: File,
        val exitCode: Int,
        val output: String,
    ) {
        fun jmhResults(): List<JsonObject> = Json.parseToJsonElement(File(out, "jmh.json").readText()).jsonArray.map { it.jsonObject }
    }

    private companion object {
        const val TIMEOUT_SECONDS = 100L
        val EXPECTED_BENCHMARKS =
            listOf(
                "FileReadBenchmark.fileChannel",
                "FileReadBenchmark.inputStream",
                "FileReadBenchmark.ktorChannel",
                "FileReadBenchmark.virtualThread",
                "SocketWriteBenchmark.blockingSocketPlatform",
                "SocketWriteBenchmark.blockingSocketVirtual",
                "SocketWriteBenchmark.ktorSocket",
                "SocketWriteBenchmark.nioSocketChannel",
            )
    }
}
