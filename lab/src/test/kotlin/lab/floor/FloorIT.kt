package lab.floor

import lab.bench.folder.RunFolderFormat
import lab.floor.tasks.Model
import lab.floor.tasks.Warmth
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import org.junit.jupiter.params.provider.EnumSource
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * `make floor` as a user runs it, made small (depth 0, three steps up to 400 tasks, one repeat, cold and warm),
 * held to a known truth: run twice, once as is and once with every task holding a live
 * `byte[BALLAST]` and dropping another, the live heap per task must differ by that one array
 * (its bytes and its 16-byte header), not by zero (a step measured before its tasks parked) nor
 * by two (garbage counted as live). The slope is least squares over the steps, as the analysis
 * fits it (analysis/labanalysis/floor/floor.py). Measured here: 16,400 B more a task (16,448 for a virtual thread on JDK 21).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class FloorIT {
    private val root = File(System.getProperty("lab.root"))
    private val results = File(System.getProperty("lab.results"), "floor")
    private lateinit var plain: Run
    private lateinit var ballast: Run

    /** One run's exit code, folder and floor.csv rows. */
    class Run(val exitCode: Int, val dir: File, val rows: List<Map<String, String>>) {
        fun liveHeapPerTask(model: Model, warmth: Warmth): Double {
            val points = rows.filter { it["model"] == model.slug && it["warmth"] == warmth.slug }.map {
                it.getValue("tasks").toDouble() to
                    it.getValue("live_heap_bytes").toDouble()
            }
            assertEquals(STEPS.size, points.size, "${model.slug} ${warmth.slug}: one row per step")
            val meanX = points.sumOf { it.first } / points.size
            val meanY = points.sumOf { it.second } / points.size
            return points.sumOf { (x, y) -> (x - meanX) * (y - meanY) } / points.sumOf { (x, _) -> (x - meanX) * (x - meanX) }
        }
    }

    @BeforeAll
    fun runTwice() {
        plain = run("plain")
        ballast = run("ballast", "--ballast-bytes", "$BALLAST")
    }

    @Test
    fun `both runs complete, and their manifests say so`() {
        for (run in listOf(plain, ballast)) {
            assertEquals(0, run.exitCode, File(run.dir, "manifest.json").readText())
            assertTrue(""""status": "complete"""" in File(run.dir, "manifest.json").readText())
        }
    }

    @Test
    fun `floor csv holds exactly the columns the analysis reads, one row per step of every JVM`() {
        val header = File(plain.dir, "floor.csv").readLines().first()
        assertEquals(RunFolderFormat.experiment(FloorCsv.KIND, "floor.csv").columns.keys.joinToString(","), header)
        assertEquals(
            "jdk,jdk_version,model,depth,repeat,tasks,live_heap_bytes,rss_bytes,pss_bytes,nmt_thread_committed_bytes," +
                "nmt_stack_committed_bytes,threads,warmth",
            header,
        )
        assertEquals(Model.entries.size * Warmth.entries.size * STEPS.size, plain.rows.size)
    }

    @ParameterizedTest
    @EnumSource(Model::class)
    fun `a live array held by every task adds its size and header to the live heap per task, cold and warm, the dropped one nothing`(
        model: Model,
    ) {
        for (warmth in Warmth.entries) {
            val added = ballast.liveHeapPerTask(model, warmth) - plain.liveHeapPerTask(model, warmth)
            val expected = BALLAST + ARRAY_HEADER
            assertTrue(
                kotlin.math.abs(added - expected) <= TOLERANCE_BYTES,
                "${model.slug} ${warmth.slug}: the live heap per task grew by $added B with the ballast; " +
                    "expected $expected B within $TOLERANCE_BYTES",
            )
        }
    }

    @Test
    fun `a cold JVM parks its tasks with no warm-up round, a warm one after the model's rounds, and the manifest says which`() {
        val manifest = File(plain.dir, "manifest.json").readText()
        assertTrue(""""warmths": [""" in manifest && """"cold"""" in manifest, manifest.take(2000))
        for (log in File(plain.dir, "logs").listFiles().orEmpty()) {
            val warmth = Warmth.entries.single { "-${it.slug}-" in log.name }
            val model = Model.of(Regex("^jdk\\d+-(.+)-depth\\d+-").find(log.name)!!.groupValues[1])
            val said = log.readLines().single { it.startsWith("warmed up with ") }
            assertTrue(said.startsWith("warmed up with ${warmth.warmupRounds(model)} round(s)"), "${log.name}: $said")
        }
        assertEquals(Model.entries.size * Warmth.entries.size, File(plain.dir, "logs").listFiles().orEmpty().size)
    }

    @Test
    fun `each platform thread is one more OS thread at every step, and the others add none`() {
        val byModel = plain.rows.groupBy { it["model"] }
        for ((model, rows) in byModel) {
            val first = rows.first { it["tasks"] == "0" }.getValue("threads").toInt()
            for (row in rows) {
                val added = row.getValue("threads").toInt() - first
                val expected = if (model == Model.PLATFORM.slug) row.getValue("tasks").toInt() else 0
                // The JVM's own threads may come and go by one or two (a compiler thread, a GC worker).
                assertTrue(kotlin.math.abs(added - expected) <= 3, "$model at ${row["tasks"]} tasks: $added threads added")
            }
        }
    }

    @Test
    fun `asked to measure only what results holds no floor of, a run after a whole one measures nothing and makes no folder`() {
        val into = plain.dir.parentFile
        val log = File(results, "unless-measured.log")
        val code = start(listOf("--jdk", env("LAB_SERVER_JDK"), "--unless-measured"), into, log)
        val said = log.readLines().filterNot { it.startsWith("WARNING") }
        assertEquals(0, code, "$said")
        assertTrue(
            said.single().startsWith("floor: ${plain.dir.path} measured JDK ") && said.single().endsWith("already"),
            "$said",
        )
        assertEquals(listOf(plain.dir), into.listFiles().orEmpty().filter { it.isDirectory })
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
        "--steps, '400,200', --steps: must be ascending",
        "--models, 'virtual,fibers', unknown model 'fibers'",
        "--jdk, /nonexistent, is not a JDK home",
    )
    fun `bad input is refused in one line, with exit code 2 and no run folder`(option: String, value: String, expected: String) {
        val into = File(results, "bad-input").apply {
            deleteRecursively()
            mkdirs()
        }
        val log = File(into, "floor.log")
        val args = if (option == "--jdk") listOf(option, value) else listOf("--jdk", env("LAB_SERVER_JDK"), option, value)
        val code = start(args, into, log)
        val output = log.readLines().filterNot { it.startsWith("WARNING") }
        assertEquals(2, code, "$output")
        assertEquals(1, output.size, "one line: $output")
        assertTrue(output.single().startsWith("make floor: ") && expected in output.single(), output.single())
        assertTrue(into.listFiles().orEmpty().none { it.isDirectory }, "no run folder")
    }

    private fun run(name: String, vararg extra: String): Run {
        val into = File(results, name).apply {
            deleteRecursively()
            mkdirs()
        }
        val log = File(into, "floor.log")
        val code = start(
            listOf("--jdk", env("LAB_SERVER_JDK"), "--depths", "0", "--steps", STEPS.joinToString(","), "--repeats", "1") + extra,
            into,
            log,
        )
        val dir =
            into.listFiles().orEmpty().singleOrNull { it.isDirectory } ?: fail("no run folder; see $log:\n${log.readText().takeLast(3000)}")
        val lines = File(dir, "floor.csv").readLines()
        val columns = lines.first().split(",")
        return Run(code, dir, lines.drop(1).map { line -> columns.zip(line.split(",")).toMap() })
    }

    private fun start(args: List<String>, into: File, log: File): Int {
        val process = ProcessBuilder(
            listOf("${env("LAB_HARNESS_JDK")}/bin/java", "-cp", File(root, "lab/target/lab.jar").path, "lab.floor.FloorMainKt") +
                listOf("--repo", root.path, "--results", into.path) + args,
        ).redirectErrorStream(true).redirectOutput(log).start()
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroy()
            fail("make floor took over 3 minutes; see $log:\n${log.readText().takeLast(3000)}")
        }
        return process.exitValue()
    }

    private fun env(name: String): String = System.getenv(name) ?: fail("set $name; `make test` does")

    private companion object {
        val STEPS = listOf(0, 200, 400)
        const val BALLAST = 16_384

        // A byte[]'s header: mark word, class pointer and length, 16 bytes with compressed class pointers (the JVMs' default).
        const val ARRAY_HEADER = 16

        // Room for what differs between two JVMs besides the array: the task's reference to it (8 bytes
        // without compressed oops, as under ZGC), and a virtual thread's compiled frames, which the JIT
        // lays out a little differently from one JVM to the next (up to ~50 B a task seen here). Half
        // an array, or a second one, is far outside it.
        const val TOLERANCE_BYTES = 256
    }
}
