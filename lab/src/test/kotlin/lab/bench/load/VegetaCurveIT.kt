package lab.bench.load

import lab.bench.TestServer
import lab.bench.collect.PacketSocket
import lab.bench.collect.RunClock
import lab.bench.collect.WireLatency
import lab.bench.folder.RunFolderFormat
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.net.URI
import java.util.concurrent.TimeUnit
import java.util.zip.GZIPInputStream
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/**
 * The curve's steps given to vegeta, held to what they must be against a real server: each
 * step's attack starts when the load's clock reaches its settling phase and stops at the
 * step's end, as the next one starts, sends the step's rate, and records every request under
 * the phase the clock says, each answer checked as bench.js checks k6's. One vegeta-steps runs
 * them all, and the CPU sampler is told it; every step goes on the pool it opened before the
 * first, and no more.
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
        TestServer.start(root, "jetty-virtual", dir).use { server ->
            val url = server.url
            val clock = RunClock(profile).apply { markLoadStart() }
            val attacked = mutableListOf<Long>()
            VegetaCurve(vegeta, url, profile.timeline, profile.curveConnections, dir, clock, search = null) {
                synchronized(attacked) { attacked += it }
            }.use { curve ->
                curve.start()
                assertFalse(curve.allEnded(), "with its steps still to come, vegeta's attacks have not all ended")
                Thread.sleep(((profile.durationSeconds - clock.loadSeconds()) * 1000).toLong() + 500)
                val deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
                while (!curve.allEnded() && System.nanoTime() < deadlineNs) Thread.sleep(100)
                assertTrue(curve.allEnded(), "the timeline over and the last answers in, every attack has ended")
                curve.collect()
            }
            assertEquals(1, attacked.toSet().size, "one vegeta-steps for every step, followed by the CPU sampler: $attacked")
            val rows = GZIPInputStream(File(dir, VegetaCurve.FILE).inputStream()).bufferedReader().useLines { lines ->
                val all = lines.map { it.split(',') }.toList()
                assertEquals(RunFolderFormat.columns(VegetaCurve.FILE), all.first())
                all.drop(1)
            }
            for (rate in listOf(200, 400)) {
                val mine = rows.filter { it[2] == "json-at-$rate" }
                // An attack sends what its schedule has due from its step's settling phase to the step's end, no more and no less.
                assertEquals(rate * profile.curveStepSeconds, mine.size, "json-at-$rate: its requests")
                val measured = mine.count { it[1] == "json-at-$rate" }
                val expected = rate * (profile.curveStepSeconds - LoadTimeline.CURVE_SETTLE_SECONDS)
                val about = (expected * 9 / 10)..(expected * 11 / 10)
                assertTrue(measured in about, "json-at-$rate: $measured sent in the step, not about $expected")
                val seqs = mine.map { it[3].toInt() }.sorted()
                assertEquals(mine.indices.toList(), seqs, "json-at-$rate: numbered from 0, none lost")
            }
            // One step's attack ends as the next one's starts, give or take the few ms each takes to start: the server never
            // meets two steps' rates at once. An attack that went on for 250 ms past its step did that at each step's start.
            val lastOfFirst = rows.filter { it[2] == "json-at-200" }.maxOf { it[0].toDouble() }
            val firstOfNext = rows.filter { it[2] == "json-at-400" }.minOf { it[0].toDouble() }
            assertTrue(lastOfFirst - firstOfNext < 0.1, "json-at-200 sent until $lastOfFirst s, json-at-400 from $firstOfNext s")
            // The server answers the contract's body, so every /json check passed.
            assertTrue(rows.all { it[5] == "200" && it[7] == "1" }, "a request failed its checks: ${rows.firstOrNull { it[7] != "1" }}")
            val left = File(dir, "vegeta").listFiles().orEmpty().filter { it.extension == "csv" }
            assertTrue(left.isEmpty(), "each attack's own results go once in ${VegetaCurve.FILE}: $left")
        }
    }

    /**
     * The pool is fixed: 16 connections, opened before the first step, and no other. The test stops the server (SIGSTOP) for
     * [STALL_MS] of the first step's measured seconds, when 200 requests fall due: an unbounded pool dialled a connection for
     * each (20261128-064936-curve). Here an attack has no more workers than the pool has connections
     * ([VegetaCurve.workersFor]): the 16 in flight wait on the server, the rest wait for a worker and go out late by their
     * schedule, which the analysis adds to their latency (vegeta_sent), and no request waits for a connection, so none times
     * out while the server has it and none of the pool's is closed and dialled again.
     */
    @Test
    fun `every step goes on the pool opened before the first, and a request held up by a stall goes out late, not on a new connection`() {
        val poolDir = TestServer.resultsDir("vegeta-pool")
        val pooled = profile.copy(curveConnections = 16)
        assertEquals(16, VegetaCurve.workersFor(200, pooled.curveConnections))
        TestServer.start(root, "jetty-virtual", poolDir).use { server ->
            val clock = RunClock(pooled).apply { markLoadStart() }
            val first = pooled.timeline.single { it.name == "json-at-200" }
            val stall = Thread {
                Thread.sleep(((first.fromSeconds - clock.loadSeconds()) * 1000).toLong())
                signal("STOP", server.pid)
                Thread.sleep(STALL_MS)
                signal("CONT", server.pid)
            }
            VegetaCurve(vegeta, server.url, pooled.timeline, pooled.curveConnections, poolDir, clock, search = null) {}.use { curve ->
                curve.start()
                stall.start()
                Thread.sleep(((pooled.durationSeconds - clock.loadSeconds()) * 1000).toLong() + 500)
                stall.join()
                curve.collect()
                assertEquals(emptyList(), curve.problems)
                assertEquals(VegetaStepsLog.PoolRecord(opened = 16, dialledAfter = 0), curve.pool())
            }
            // Each of the step's requests: when it went out, its number in the attack's schedule, and vegeta's latency.
            val stalled = GZIPInputStream(File(poolDir, VegetaCurve.FILE).inputStream()).bufferedReader().useLines { lines ->
                lines.drop(1).map {
                    it.split(',')
                }.filter { it[2] == "json-at-200" }.map { Triple(it[0].toDouble(), it[3].toInt(), it[6].toDouble()) }
                    .toList()
            }
            assertTrue(stalled.all { it.third < VegetaCurve.REQUEST_TIMEOUT_S * 1000 }, "every request answered within the timeout")
            // Most of the stall: those due in its first quarter, about 50 at 200/s.
            val waited = STALL_MS * 3 / 4.0
            val onServer = stalled.count { it.third >= waited }
            assertTrue(onServer in 1..16, "no more waited on the stopped server than the pool's 16 hold in flight: $onServer")
            val began = stalled.minOf { it.first - it.second / 200.0 }
            val lateMs = stalled.map { (it.first - (began + it.second / 200.0)) * 1000 }
            assertTrue(lateMs.count { it >= waited } > 16, "more than the 16 in flight went out late: ${lateMs.count { it >= waited }}")
        }
    }

    /**
     * A search slot follows the ladder at the rate the search chooses from what the wire saw: halfway, on a log scale, between
     * 200/s, which the server holds, and 400/s, at which it answers nothing: the test stops its process (SIGSTOP) for that
     * step's measured seconds. So the first slot is at 280/s, whatever this host's speed, and the second inside the gap the
     * first left. The pass's clock names each slot for its rate, so the wire's rows, vegeta's and the search's all say
     * `json-at-280`.
     */
    @Test
    fun `a search slot is offered between the highest step held and the lowest failed, and named for its rate`() {
        val searching = profile.copy(curveSearchSteps = 2, jsonCurveP99BoundMs = 1000.0)
        val searchDir = TestServer.resultsDir("vegeta-search")
        TestServer.start(root, "jetty-virtual", searchDir).use { server ->
            val clock = RunClock(searching).apply { markLoadStart() }
            // Reading packets needs root or CAP_NET_RAW: CI runs as root; a user's run skips, as the wire's own test does.
            val wire = try {
                WireLatency.open("127.0.0.1", URI(server.url).port, File(searchDir, "wire.csv"), clock)
            } catch (e: PacketSocket.Unavailable) {
                assumeTrue(false, e.message)
                return
            }
            val stopped = searching.timeline.single { it.name == "json-at-400" }
            val pause = Thread {
                Thread.sleep(((stopped.fromSeconds - clock.loadSeconds()) * 1000).toLong())
                signal("STOP", server.pid)
                Thread.sleep(((stopped.toSeconds - clock.loadSeconds()) * 1000).toLong())
                signal("CONT", server.pid)
            }
            val bounds = mapOf("json" to searching.jsonCurveP99BoundMs)
            wire.use {
                CurveSearch(clock, bounds, searchDir).use { search ->
                    wire.onAnswer = search::answered
                    wire.start()
                    VegetaCurve(vegeta, server.url, searching.timeline, searching.curveConnections, searchDir, clock, search) {
                    }.use { curve ->
                        curve.start()
                        pause.start()
                        Thread.sleep(((searching.durationSeconds - clock.loadSeconds()) * 1000).toLong() + 500)
                        pause.join()
                        curve.collect()
                    }
                }
            }
            val lines = File(searchDir, CurveSearch.FILE).readLines()
            assertEquals(RunFolderFormat.columns(CurveSearch.FILE), lines.first().split(','))
            val choices = lines.drop(1).map { it.split(',') }
            assertEquals(listOf("json-search-1", "280", "200", "400"), choices.first().subList(3, 7), "the first slot: $choices")
            assertEquals(listOf("json-search-1", "json-search-2"), choices.map { it[3] }, "both slots offered: $choices")
            val second = choices[1][4].toInt()
            assertTrue(second in 201 until 280 || second in 281 until 400, "the second slot inside the gap the first left: $second")
            val phases = clock.timeline.phases.map { it.name }
            assertTrue(listOf("json-to-280", "json-at-280", "json-at-$second").all { it in phases }, "$phases")
            val wireRows = File(searchDir, "wire.csv").readLines().drop(1).map { it.split(',') }
            assertTrue(wireRows.count { it[1] == "json-at-280" } > 280, "the wire names the slot's requests by its rate")
            val attacks = GZIPInputStream(File(searchDir, VegetaCurve.FILE).inputStream()).bufferedReader().useLines { lines ->
                lines.drop(1).map { it.split(',')[2] }.toSet()
            }
            assertEquals(setOf("json-at-200", "json-at-400", "json-at-280", "json-at-$second"), attacks)
        }
    }

    private fun signal(name: String, pid: Long) {
        check(ProcessBuilder("kill", "-$name", "$pid").start().waitFor() == 0) { "kill -$name $pid failed" }
    }

    private companion object {
        /** How long the pool's test stops the server in the first step. */
        const val STALL_MS = 1000L
    }
}
