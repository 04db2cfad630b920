package lab.bench

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertNull

/** A run whose k6 script threw is not a measurement of the profile; k6's own errors are not the script's. */
class K6ScriptErrorsTest {
    @TempDir
    lateinit var dir: File

    @Test
    fun `exceptions the script threw fail the run, named by the first`() {
        val threw = """time="2026-11-22T04:37:46Z" level=error msg="TypeError: Cannot read property 'length' of undefined\n""" +
            """	at pinTraps (file:///work/main/loadtests/bench.js:182:76(8))\n" executor=constant-arrival-rate scenario=pin_traps source=stacktrace"""
        val log = File(dir, "k6.log").apply { writeText("$threw\n$threw\n") }

        assertEquals(
            "k6's script threw 2 time(s), first: TypeError: Cannot read property 'length' of undefined; see k6.log",
            ServerRun.k6ScriptErrors(log),
        )
    }

    @Test
    fun `warnings, k6 being stopped and a missing log are not the script's errors`() {
        val log = File(dir, "k6.log").apply {
            writeText(
                """
                time="2026-11-22T02:01:21Z" level=warning msg="Insufficient VUs, reached 10 active VUs and cannot initialize more" executor=constant-arrival-rate scenario=dashboard
                time="2026-11-22T02:59:01Z" level=error msg="test run was aborted because k6 received a 'terminated' signal"
                """.trimIndent(),
            )
        }

        assertNull(ServerRun.k6ScriptErrors(log))
        assertNull(ServerRun.k6ScriptErrors(File(dir, "absent.log")))
    }
}
