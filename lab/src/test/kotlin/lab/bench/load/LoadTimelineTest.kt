package lab.bench.load

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class LoadTimelineTest {
    private val profiles = File(System.getProperty("lab.root"), "loadtests/profiles")
    private val smoke = Profile.load(profiles, "smoke")

    @Test
    fun `the phases run end to end from k6's start to the profile's duration`() {
        for (name in listOf("smoke", "local", "curve", "vps")) {
            val profile = Profile.load(profiles, name)
            val timeline = profile.timeline
            assertEquals(0, timeline.first().fromSeconds, name)
            assertTrue(timeline.zipWithNext().all { (a, b) -> a.toSeconds == b.fromSeconds }, "$name: $timeline")
            assertEquals(profile.durationSeconds, timeline.last().toSeconds, name)
            assertEquals(timeline.size, timeline.map { it.name }.toSet().size, "$name: a phase name is used twice")
        }
    }

    @Test
    fun `the curve follows the dashboard phase, json's steps before the dashboard's, each settling before it is measured`() {
        val timeline = smoke.timeline
        val curve = timeline.dropWhile { it.name != "dashboard" }.drop(1)
        assertEquals(
            listOf("json-to-100", "json-at-100", "json-to-200", "json-at-200", "dashboard-to-20", "dashboard-at-20"),
            curve.map { it.name },
        )
        assertTrue(curve.filter { "-to-" in it.name }.all { it.toSeconds - it.fromSeconds == LoadTimeline.CURVE_SETTLE_SECONDS })
        // A profile may give each endpoint's first step longer, for the server to recover from the phase before.
        val recovering = smoke.copy(curveFirstSettleSeconds = 10).timeline.filter { "-to-" in it.name }
        assertEquals(listOf(10, LoadTimeline.CURVE_SETTLE_SECONDS, 10), recovering.map { it.toSeconds - it.fromSeconds })
        assertTrue(
            curve.filter { "-at-" in it.name }.all {
                it.toSeconds - it.fromSeconds ==
                    smoke.curveStepSeconds - LoadTimeline.CURVE_SETTLE_SECONDS
            },
        )
        assertEquals(listOf(100, 100, 200, 200, 20, 20), curve.map { it.ratePerSecond })
        assertTrue(curve.none { it.ramp }, "a curve step moves to its rate at once")
    }

    @Test
    fun `each endpoint's VUs cover the highest rate it is offered, its curve's included`() {
        val profile = smoke.copy(jsonRatePerSecond = 100, jsonCurveRatesPerSecond = listOf(100, 900))
        val plan = K6Plan.of(profile, idleSockets = 300, baseUrl = "http://127.0.0.1:1")
        assertEquals(K6Plan.vusFor(900), plan.jsonVus)
        assertEquals(profile.timeline, plan.timeline)
    }

    @Test
    fun `a curve given to vegeta is vegeta's from each step's settling to its end, and k6 gets VUs only for the rates it offers`() {
        val profile = smoke.copy(curveGenerator = Profile.VEGETA, jsonCurveRatesPerSecond = listOf(100, 900))
        val curve = profile.timeline.dropWhile { it.name != "dashboard" }.drop(1)
        assertTrue(curve.all { it.generator == Profile.VEGETA }, "$curve")
        assertTrue(profile.timeline.takeWhile { it.name != "json-to-100" }.all { it.generator == Profile.K6 })
        assertEquals(K6Plan.vusFor(profile.jsonRatePerSecond), K6Plan.of(profile, 300, "http://127.0.0.1:1").jsonVus)

        val attacks = VegetaCurve.attacksOf(profile.timeline)
        assertEquals(listOf("json-at-100", "json-at-900", "dashboard-at-20"), attacks.map { it.step })
        val first = attacks.first()
        assertEquals(profile.timeline.single { it.name == "json-to-100" }.fromSeconds, first.fromSeconds)
        assertEquals(profile.timeline.single { it.name == "json-at-100" }.toSeconds, first.toSeconds)
        assertEquals(emptyList(), VegetaCurve.attacksOf(smoke.timeline), "k6 offers the curve unless the profile says otherwise")
    }

    @Test
    fun `a profile without a curve has the phases it always had`() {
        val plain = smoke.copy(jsonCurveRatesPerSecond = emptyList(), dashboardCurveRatesPerSecond = emptyList())
        assertEquals(
            listOf("sockets-step-1", "sockets-step-2", "json-warmup", "json", "dashboard-warmup", "dashboard"),
            plain.timeline.map { it.name },
        )
    }

    @Test
    fun `a curve whose rates do not rise, or with no bound to judge its steps by, is refused`(@TempDir dir: File) {
        val text = File(profiles, "smoke.json").readText()
        File(
            dir,
            "falling.json",
        ).writeText(text.replace("\"jsonCurveRatesPerSecond\": [100, 200]", "\"jsonCurveRatesPerSecond\": [200, 100]"))
        File(dir, "unbound.json").writeText(text.replace(Regex("\"dashboardCurveP99BoundMs\": [\\d.]+"), "\"dashboardCurveP99BoundMs\": 0"))
        File(dir, "short.json").writeText(text.replace(Regex("\"curveStepSeconds\": \\d+"), "\"curveStepSeconds\": 3"))
        val falling = assertThrows<BenchInputException> { Profile.load(dir, "falling") }
        assertTrue("jsonCurveRatesPerSecond must rise" in falling.message!!, falling.message)
        val unbound = assertThrows<BenchInputException> { Profile.load(dir, "unbound") }
        assertTrue("dashboardCurveP99BoundMs must be above 0" in unbound.message!!, unbound.message)
        val short = assertThrows<BenchInputException> { Profile.load(dir, "short") }
        assertTrue("curveStepSeconds must be at least 4" in short.message!!, short.message)
    }
}
