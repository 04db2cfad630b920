package lab.bench.load

import lab.bench.collect.RunClock
import lab.bench.folder.RunFolderFormat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The search's rules, on answers the test hands it as the wire would: the halfway rate, the guide, and the gap each slot searches. */
class CurveSearchTest {
    private val smoke = Profile.load(File(System.getProperty("lab.root"), "loadtests/profiles"), "smoke")
    private val profile = smoke.copy(curveGenerator = Profile.VEGETA, curveSearchSteps = 3, jsonCurveRatesPerSecond = listOf(100, 200, 400))

    @Test
    fun `halfway is the geometric mean, rounded to as few figures as keep it strictly between the two`() {
        assertEquals(7500, CurveSearch.between(7000, 8000))
        assertEquals(450, CurveSearch.between(400, 500))
        assertEquals(2000, CurveSearch.between(1600, 2400))
        assertEquals(3200, CurveSearch.between(200, 50_000))
        assertEquals(7300, CurveSearch.between(7200, 7500), "two figures give 7,300, inside the gap")
        assertEquals(7450, CurveSearch.between(7400, 7500), "two figures give 7,400 or 7,500, the gap's ends; three give 7,450")
        assertEquals(101, CurveSearch.between(100, 102))
        assertNull(CurveSearch.between(100, 101), "no whole rate lies between")
    }

    @Test
    fun `a step held when fewer than 1% of the requests due were unanswered or over the bound`() {
        assertTrue(CurveSearch.Guide(dueRequests = 1000, answeredRequests = 1000, overBoundRequests = 9).held)
        assertFalse(CurveSearch.Guide(1000, 1000, 10).held)
        assertFalse(CurveSearch.Guide(1000, 990, 0).held, "unanswered counts as over the bound")
        assertTrue(CurveSearch.Guide(1000, 995, 4).held)
        assertFalse(CurveSearch.Guide(0, 0, 0).held, "a step with nothing due says nothing")
    }

    @Test
    fun `each slot searches the gap between the highest step held and the lowest above it that was not`(@TempDir dir: File) {
        val clock = RunClock(profile).apply { markLoadStart() }
        val loadStart = -clock.loadSeconds(0.0)
        val bounds = mapOf("json" to 50.0)
        CurveSearch(clock, bounds, dir).use { search ->
            fun step(rate: Int, ms: Double) {
                val phase = clock.timeline.phases.single { it.name == LoadTimeline.curveStep("json", rate) }
                // As the wire tells it: every request due in the step, arriving evenly, each answered in ms.
                val due = rate * (phase.toSeconds - phase.fromSeconds)
                repeat(due) { i -> search.answered(loadStart + phase.fromSeconds + i.toDouble() / rate, phase.name, "json", ms) }
            }
            step(100, 1.0)
            step(200, 1.0)
            step(400, 80.0)
            val slot = { n: Int -> clock.timeline.phases.single { it.name == LoadTimeline.searchStep("json", n) } }
            // The wire has passed the slot's start: no wait.
            search.answered(loadStart + slot(1).fromSeconds, "json-to-search-1", "json", 1.0)
            assertEquals(280, search.rateFor(slot(1)))
            clock.timeline.offer(slot(1), 280)
            step(280, 1.0)
            search.answered(loadStart + slot(2).fromSeconds, "json-to-search-2", "json", 1.0)
            assertEquals(330, search.rateFor(slot(2)), "280 held: between it and 400")
            clock.timeline.offer(slot(2), 330)
            step(330, 60.0)
            search.answered(loadStart + slot(3).fromSeconds, "json-to-search-3", "json", 1.0)
            assertEquals(300, search.rateFor(slot(3)), "330 did not: between 280 and it")
        }
        val rows = File(dir, CurveSearch.FILE).readLines()
        assertEquals(RunFolderFormat.columns(CurveSearch.FILE).joinToString(","), rows.first())
        assertEquals(
            listOf("json-search-1,280,200,400", "json-search-2,330,280,400", "json-search-3,300,280,330"),
            rows.drop(1).map {
                it.split(',').drop(3).joinToString(",")
            },
        )
    }

    @Test
    fun `no slot is offered where no step held, or none above the highest held failed`(@TempDir dir: File) {
        val clock = RunClock(profile).apply { markLoadStart() }
        val loadStart = -clock.loadSeconds(0.0)
        val slot = clock.timeline.phases.single { it.name == "json-search-1" }
        CurveSearch(clock, mapOf("json" to 50.0), dir).use { search ->
            search.answered(loadStart + slot.fromSeconds, "json-to-search-1", "json", 1.0)
            assertNull(search.rateFor(slot), "nothing answered: no step held")
            for (rate in listOf(100, 200, 400)) {
                val phase = clock.timeline.phases.single { it.name == "json-at-$rate" }
                repeat(rate * (phase.toSeconds - phase.fromSeconds)) { i ->
                    search.answered(loadStart + phase.fromSeconds + i.toDouble() / rate, phase.name, "json", 1.0)
                }
            }
            assertNull(search.rateFor(slot), "the ladder's top held: its limit is above the curve")
        }
        val rows = File(dir, CurveSearch.FILE).readLines().drop(1).map { it.split(',').drop(3).joinToString(",") }
        assertEquals(listOf("json-search-1,0,,", "json-search-1,0,400,"), rows, "each slot offered nothing, and says so")
    }

    @Test
    fun `the ladder stops once two of its steps in a row failed above the highest held, and the server rests`(@TempDir dir: File) {
        val ladder = profile.copy(jsonCurveRatesPerSecond = listOf(100, 200, 300, 400, 500))
        val clock = RunClock(ladder).apply { markLoadStart() }
        val loadStart = -clock.loadSeconds(0.0)
        fun phase(rate: Int) = clock.timeline.phases.single { it.name == "json-at-$rate" }
        CurveSearch(clock, mapOf("json" to 50.0), dir).use { search ->
            fun step(rate: Int, ms: Double) = repeat(rate * (phase(rate).toSeconds - phase(rate).fromSeconds)) { i ->
                search.answered(loadStart + phase(rate).fromSeconds + i.toDouble() / rate, "json-at-$rate", "json", ms)
            }
            assertTrue(search.offers(phase(100)), "the first step, with nothing before it")
            step(100, 1.0)
            step(200, 80.0)
            assertTrue(search.offers(phase(300)), "one step failed: a server near its limit can hold the next")
            step(300, 80.0)
            assertFalse(search.offers(phase(400)), "two in a row failed")
            assertFalse(search.offers(phase(500)), "and the ladder stays stopped")
        }
        val rows = File(dir, CurveSearch.FILE).readLines().drop(1).map { it.split(',').drop(3).joinToString(",") }
        assertEquals(listOf("json-at-400,0,100,200", "json-at-500,0,100,200"), rows)
    }

    @Test
    fun `with no search to follow, the ladder stops two steps past where the server stopped keeping up`(@TempDir dir: File) {
        val ladder = profile.copy(curveSearchSteps = 0, jsonCurveRatesPerSecond = listOf(100, 200, 300, 400, 500, 600))
        val clock = RunClock(ladder).apply { markLoadStart() }
        val loadStart = -clock.loadSeconds(0.0)
        fun phase(rate: Int) = clock.timeline.phases.single { it.name == "json-at-$rate" }
        CurveSearch(clock, mapOf("json" to 50.0), dir).use { search ->
            // Answers `share` of the step's requests, each in `ms`.
            fun step(rate: Int, ms: Double, share: Double = 1.0) {
                val answered = (share * rate * (phase(rate).toSeconds - phase(rate).fromSeconds)).toInt()
                val from = loadStart + phase(rate).fromSeconds
                repeat(answered) { i -> search.answered(from + i / (share * rate), "json-at-$rate", "json", ms) }
            }
            step(100, 1.0)
            step(200, 80.0)
            step(300, 80.0)
            assertTrue(search.offers(phase(400)), "two over the bound, every request answered: the server kept up")
            step(400, 80.0, share = 0.5)
            assertTrue(search.offers(phase(500)), "one step it did not keep up with")
            step(500, 80.0, share = 0.5)
            assertFalse(search.offers(phase(600)), "two in a row it did not keep up with")
        }
    }
}
