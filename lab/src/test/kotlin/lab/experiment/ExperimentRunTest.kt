package lab.experiment

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import lab.support.Provenance
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class ExperimentRunTest {
    @TempDir
    lateinit var results: File

    @Serializable
    data class Measured(
        override val provenance: Provenance,
        val steps: List<Int> = emptyList(),
        override val problems: List<String> = emptyList(),
    ) :
        ExperimentManifest

    private fun start() = ExperimentRun.start(
        "make test",
        results,
        "kind",
        Measured.serializer(),
        Measured(Provenance.start("test", Provenance.Jdk.current(), results)),
    )

    private fun recorded(run: ExperimentRun<Measured>) = Json.decodeFromString(
        Measured.serializer(),
        File(run.folder, "manifest.json").readText(),
    )

    @Test
    fun `a run's folder is named for its kind, and its manifest says running from the start`() {
        val run = start()
        assertTrue(run.folder.parentFile == results && run.folder.name.endsWith("-kind"), run.folder.path)
        assertEquals(Provenance.RUNNING, recorded(run).provenance.status)
        run.end { error("no problem was recorded") }
    }

    @Test
    fun `what a run records is in its manifest at once`() {
        val run = start()
        run.record { it.copy(steps = it.steps + 1) }
        run.record { it.copy(steps = it.steps + 2) }
        assertEquals(listOf(1, 2), recorded(run).steps)
        run.end { error("no problem was recorded") }
    }

    @Test
    fun `a run without problems ends complete, its facts kept`() {
        val run = start()
        run.record { it.copy(steps = listOf(7)) }
        run.end { error("no problem was recorded") }
        val manifest = recorded(run)
        assertEquals(Provenance.COMPLETE, manifest.provenance.status)
        assertTrue(manifest.provenance.finishedAt != null)
        assertEquals(listOf(7), manifest.steps)
    }

    @Test
    fun `a problem is data, so the run goes on, then ends failed and says what failed`() {
        val run = start()
        run.problem("server a: exited")
        run.record { it.copy(steps = listOf(1)) }
        run.problem("server b: timed out")
        val failed = assertFailsWith<ExperimentFailed> { run.end { problems -> "${problems.size} failed" } }
        assertEquals("2 failed", failed.message)
        val manifest = recorded(run)
        assertEquals(Provenance.FAILED, manifest.provenance.status)
        assertEquals(listOf("server a: exited", "server b: timed out"), manifest.problems)
        assertEquals(listOf(1), manifest.steps)
    }

    @Test
    fun `a run stopped early is incomplete, with what it recorded on the way out`() {
        val run = start()
        run.stop { it.copy(steps = listOf(3)) }
        val manifest = recorded(run)
        assertEquals(Provenance.INCOMPLETE, manifest.provenance.status)
        assertEquals(listOf(3), manifest.steps)
    }
}
