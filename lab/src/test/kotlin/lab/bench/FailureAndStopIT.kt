package lab.bench

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/** What the harness does when things go wrong: a server dies mid-run, or the user stops the run. */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class FailureAndStopIT {
    @Test
    fun `a server killed mid-run is recorded as failed with what it measured, and the next server still runs`() {
        val harness = Harness("server-dies")
        val process = harness.start("--profile", "smoke", "--servers", "vthread,coroutine")
        harness.awaitLoad("vthread", seconds = 90)
        val pid = assertNotNull(harness.readyPid(File(harness.runDir(), "vthread/server.log")))
        ProcessHandle.of(pid).ifPresent { it.destroyForcibly() }

        assertEquals(1, harness.await(process, minutes = 3), "the exit code says a server failed")
        val manifest = harness.manifest()
        assertEquals("failed", manifest.status)
        val (vthread, coroutine) = manifest.outcomes
        assertEquals("vthread" to ServerOutcome.FAILED, vthread.server to vthread.status)
        assertTrue(vthread.reason.orEmpty().startsWith("exited with code"), "${vthread.reason}")
        assertTrue(File(harness.runDir(), "vthread/proc.csv").readLines().size > 2, "what was measured until then is kept")
        assertTrue(File(harness.runDir(), "vthread/jfr-series.csv").readLines().size > 2, "the JFR series so far are kept")
        assertEquals("coroutine" to ServerOutcome.OK, coroutine.server to coroutine.status)
        assertEquals(emptyList(), harness.leftovers(harness.runDir()))
    }

    @Test
    fun `SIGTERM stops k6, the server and the stub within 10 s and marks the run incomplete`() {
        val harness = Harness("stopped")
        val process = harness.start("--profile", "smoke", "--servers", "platform")
        harness.awaitLoad("platform", seconds = 90)

        val stoppedAt = System.nanoTime()
        process.destroy()
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the harness was still running 10 s after SIGTERM")
        val seconds = (System.nanoTime() - stoppedAt) / 1e9
        println("the harness stopped %.1f s after SIGTERM".format(java.util.Locale.ROOT, seconds))

        assertEquals("incomplete", harness.manifest().status)
        assertEquals(emptyList(), harness.leftovers(harness.runDir()))
    }
}
