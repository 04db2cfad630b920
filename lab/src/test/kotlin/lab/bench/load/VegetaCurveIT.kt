package lab.bench.load

import lab.bench.TestServer
import lab.bench.collect.RunClock
import lab.bench.folder.RunFolderFormat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.TimeUnit
import java.util.zip.GZIPInputStream
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The curve's steps given to vegeta, held to what they must be against a real server: each
 * step's attack starts when the load's clock reaches its settling phase and stops at the
 * step's end, sends the step's rate, and records every request under the phase the clock
 * says, each answer checked as bench.js checks k6's. The CPU sampler is told each attack.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class VegetaCurveIT {
    private val root = File(System.getProperty("lab.root"))
    private val dir = TestServer.resultsDir("vegeta-curve")
    private val vegeta = TestServer.fromEnv("LAB_VEGETA", " to vegeta's path")

    /** One socket second, one /json second, then the curve at 200 and 400 a second, 2 s to settle and 2 measured each. */
    private val profile = Profile.load(File(root, "loadtests/profiles"), "smoke").copy(
        socketSteps = 1, stepHoldSeconds = 1, jsonWarmupSeconds = 0, jsonSeconds = 1,
        dashboardRatePerSecond = 0, dashboardWarmupSeconds = 0, dashboardSeconds = 0,
        jsonCurveRatesPerSecond = listOf(200, 400), dashboardCurveRatesPerSecond = emptyList(), curveStepSeconds = 4,
        curveGenerator = Profile.VEGETA,
    )

    @Test
    fun `each step is sent at its rate within its phases, and every answer is checked`() {
        TestServer.start(root, "vthread", dir).use { server ->
            val url = server.url
            val clock = RunClock(profile).apply { markLoadStart() }
            val attacked = mutableListOf<Long>()
            VegetaCurve(vegeta, url, profile.timeline, dir, clock) { synchronized(attacked) { attacked += it } }.use { curve ->
                curve.start()
                Thread.sleep(((profile.durationSeconds - clock.loadSeconds()) * 1000).toLong() + 500)
                curve.collect()
            }
            assertEquals(2, attacked.toSet().size, "one attack a step, each followed by the CPU sampler: $attacked")
            val rows = GZIPInputStream(File(dir, VegetaCurve.FILE).inputStream()).bufferedReader().useLines { lines ->
                val all = lines.map { it.split(',') }.toList()
                assertEquals(RunFolderFormat.columns(VegetaCurve.FILE), all.first())
                all.drop(1)
            }
            for (rate in listOf(200, 400)) {
                val mine = rows.filter { it[2] == "json-at-$rate" }
                // An attack runs from its step's settling phase to the step's end, by the clock that names the phases, and on for
                // VegetaCurve.TAIL_MS and the few ms vegeta takes to start: at most a third of a second's requests fall after the step.
                val after = mine.count { it[1] != "json-to-$rate" && it[1] != "json-at-$rate" }
                assertTrue(after <= rate / 3, "json-at-$rate: $after requests sent after the step: ${mine.map { it[1] }.toSet()}")
                val measured = mine.count { it[1] == "json-at-$rate" }
                val expected = rate * (profile.curveStepSeconds - LoadTimeline.CURVE_SETTLE_SECONDS)
                val about = (expected * 9 / 10)..(expected * 11 / 10)
                assertTrue(measured in about, "json-at-$rate: $measured sent in the step, not about $expected")
                val seqs = mine.map { it[3].toInt() }.sorted()
                assertEquals(mine.indices.toList(), seqs, "json-at-$rate: numbered from 0, none lost")
            }
            // The server answers the contract's body, so every /json check passed.
            assertTrue(rows.all { it[5] == "200" && it[7] == "1" }, "a request failed its checks: ${rows.firstOrNull { it[7] != "1" }}")
            assertTrue(File(dir, "vegeta").listFiles().orEmpty().none { it.extension == "gob" }, "vegeta's binary results are not kept")
        }
    }
}
