package lab.bench

import lab.support.Catalogue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/** What the harness does when things go wrong: a server dies mid-run, or the user stops the run. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FailureAndStopIT {
    @Test
    fun `a server killed mid-run is recorded as failed with what it measured, and the next server still runs`() {
        val harness = Harness("server-dies")
        // The shortest whole pass: the next server's needs only to run.
        val process = harness.startTestProfile("brief", "--servers", Catalogue.names.take(2).joinToString(","))
        // The passes run in a shuffled order, which the manifest gives before the first starts.
        harness.waitUntil("the pass order in the manifest", seconds = 90) {
            runCatching { harness.manifest().passOrder.size == 2 }.getOrDefault(false)
        }
        val (dying, next) = harness.manifest().passOrder
        harness.awaitLoad(dying, seconds = 90)
        val pid = assertNotNull(harness.readyPid(File(harness.runDir(), "$dying/server.log")))
        ProcessHandle.of(pid).ifPresent { it.destroyForcibly() }

        assertEquals(1, harness.await(process, minutes = 3), "the exit code says a server failed")
        val manifest = harness.manifest()
        assertEquals("failed", manifest.provenance.status)
        val (died, ran) = manifest.outcomes
        assertEquals(dying to ServerOutcome.FAILED, died.server to died.status)
        assertTrue(died.reason.orEmpty().startsWith("exited with code"), "${died.reason}")
        assertTrue(File(harness.runDir(), "$dying/proc.csv").readLines().size > 2, "what was measured until then is kept")
        assertTrue(File(harness.runDir(), "$dying/jfr-series.csv").readLines().size > 2, "the JFR series so far are kept")
        assertTrue(!File(harness.runDir(), "$dying/server.jfr").exists(), "a killed server wrote no server.jfr, and no empty one stays")
        val chunks = File(harness.runDir(), "$dying/jfr-repository").walkTopDown().filter { it.name.endsWith(".jfr") }.toList()
        assertTrue(chunks.any { it.length() > 0 }, "its unfinished recording stays where it was written")
        assertEquals(next to ServerOutcome.OK, ran.server to ran.status)
        assertEquals(emptyList(), harness.leftovers(harness.runDir()))
    }

    @Test
    fun `a stub killed mid-dashboard is marked on its pass, with its failed dashboards counted, and the next pass runs`() {
        val harness = Harness("stub-dies")
        // A dashboard phase of 12 s: the kill below lands in its first 2 s, with 10 s of it left, instead of racing a 2 s phase.
        val process = harness.startTestProfile("long-dashboard", "--servers", Catalogue.names.take(2).joinToString(","))
        harness.waitUntil("the pass order in the manifest", seconds = 90) {
            runCatching { harness.manifest().passOrder.size == 2 }.getOrDefault(false)
        }
        val (hit, next) = harness.manifest().passOrder
        harness.waitUntil("$hit in its /dashboard phase", seconds = 150) {
            File(harness.runDir(), "$hit/load.csv").takeIf { it.isFile }?.readLines()?.lastOrNull()?.split(',')?.getOrNull(1) == "dashboard"
        }
        val stub = assertNotNull(harness.readyPid(File(harness.runDir(), "$hit/stub.log")))
        ProcessHandle.of(stub).ifPresent { it.destroyForcibly() }

        assertEquals(0, harness.await(process, minutes = 3), "a lost stub is no server's failure")
        val (lost, ran) = harness.manifest().outcomes
        assertEquals(hit to ServerOutcome.OK, lost.server to lost.status)
        assertTrue(lost.marks.any { it.startsWith("the stub exited with code 137") && "during dashboard" in it }, "${lost.marks}")
        assertTrue(
            (lost.dashboardFailures ?: 0) > 0,
            "the dashboards after the stub's end failed, and are counted: ${lost.dashboardFailures}",
        )
        assertEquals(next to ServerOutcome.OK, ran.server to ran.status)
        assertEquals(0L, ran.dashboardFailures, "the next pass has a stub of its own")
        assertTrue(ran.marks.none { "stub" in it }, "${ran.marks}")
        assertEquals(emptyList(), harness.leftovers(harness.runDir()))
    }

    @Test
    fun `SIGTERM stops k6, the server and the stub within 10 s and marks the run incomplete`() {
        val harness = Harness("stopped")
        val server = Catalogue.names.last()
        val process = harness.start("--profile", "smoke", "--servers", server)
        harness.awaitLoad(server, seconds = 90)

        val stoppedAt = System.nanoTime()
        process.destroy()
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the harness was still running 10 s after SIGTERM")
        val seconds = (System.nanoTime() - stoppedAt) / 1e9
        println("the harness stopped %.1f s after SIGTERM".format(java.util.Locale.ROOT, seconds))

        assertEquals("incomplete", harness.manifest().provenance.status)
        assertEquals(emptyList(), harness.leftovers(harness.runDir()))
    }
}
