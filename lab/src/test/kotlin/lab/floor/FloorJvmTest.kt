package lab.floor

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** How a floor JVM's end is judged, with a shell standing in for the floor program: a failure is a reason, never an exception. */
class FloorJvmTest {
    @TempDir
    lateinit var dir: File

    private val step = """{"model":"virtual","depth":0,"ballastBytes":0,"tasks":%d,"liveHeapBytes":1,"rssBytes":2,"pssBytes":3,""" +
        """"nmtThreadCommittedBytes":4,"nmtStackCommittedBytes":5,"threads":6}"""

    private fun shell(script: String, expectedSteps: Int, timeoutSeconds: Long = 60) = FloorJvm(
        listOf("sh", "-c", script),
        File(dir, "logs/cell.log"),
        expectedSteps,
        timeoutSeconds,
    ).run { }

    @Test
    fun `a JVM that prints every step and exits 0 succeeds, its other output ignored`() {
        val result = shell("echo 'OpenJDK warning: something'; echo '${step.format(0)}'; echo '${step.format(10)}'; echo done >&2", 2)
        assertNull(result.failure)
        assertEquals(listOf(0, 10), result.steps.map { it.tasks })
    }

    @Test
    fun `a JVM that exits with an error is a failure that names its code and its log, and keeps the steps it printed`() {
        val result = shell("echo '${step.format(0)}'; exit 3", 2)
        assertEquals("exited with code 3; see cell.log", result.failure)
        assertEquals(1, result.steps.size)
    }

    @Test
    fun `a JVM that exits 0 with fewer steps than asked is a failure`() {
        assertEquals("measured 1 of 2 steps; see cell.log", shell("echo '${step.format(0)}'", 2).failure)
    }

    @Test
    fun `a JVM still running at its time limit is stopped and is a failure`() {
        assertEquals("still running after 1 s, stopped; see cell.log", shell("sleep 30", 1, timeoutSeconds = 1).failure)
    }

    @Test
    fun `a step line that is not a step is a failure, not a crash`() {
        assertTrue(shell("echo '{\"tasks\": \"many\"}'", 1).failure!!.startsWith("a step line it printed is not a step"))
    }
}
