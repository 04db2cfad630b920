package lab.bench.load

import lab.experiment.BadInput
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class LoadTimelineTest {
    private val profiles = File(System.getProperty("lab.root"), "loadtests/profiles")

    /** The smoke profile without its warm sockets, which follow the curve: they have a test of their own. */
    private val smoke = Profile.load(profiles, "smoke").copy(warmSockets = false)

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
            listOf(
                "json-to-100",
                "json-at-100",
                "json-to-200",
                "json-at-200",
                "json-to-full",
                "json-full",
                "dashboard-to-20",
                "dashboard-at-20",
            ),
            curve.map { it.name },
        )
        assertTrue(curve.filter { "-to-" in it.name }.all { it.toSeconds - it.fromSeconds == LoadTimeline.CURVE_SETTLE_SECONDS })
        // A profile may give each endpoint's first step longer, for the server to recover from the phase before.
        val recovering = smoke.copy(curveFirstSettleSeconds = 10).timeline.filter { "-to-" in it.name }
        val settle = LoadTimeline.CURVE_SETTLE_SECONDS
        assertEquals(listOf(10, settle, settle, 10), recovering.map { it.toSeconds - it.fromSeconds })
        assertTrue(
            curve.filter { "-at-" in it.name }.all {
                it.toSeconds - it.fromSeconds ==
                    smoke.curveStepSeconds - LoadTimeline.CURVE_SETTLE_SECONDS
            },
        )
        assertEquals(listOf(100, 100, 200, 200, 0, 0, 20, 20), curve.map { it.ratePerSecond })
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
        val curve = profile.timeline.dropWhile { it.name != "dashboard" }.drop(1).filterNot { "full" in it.name }
        assertTrue(curve.all { it.generator == Profile.VEGETA }, "$curve")
        assertTrue(profile.timeline.takeWhile { it.name != "json-to-100" }.all { it.generator == Profile.K6 })
        assertEquals(K6Plan.vusFor(profile.jsonRatePerSecond), K6Plan.of(profile, 300, "http://127.0.0.1:1").jsonVus)

        val attacks = VegetaAttack.allOf(profile.timeline)
        assertEquals(listOf("json-at-100", "json-at-900", "dashboard-at-20"), attacks.map { it.step })
        val first = attacks.first()
        assertEquals(profile.timeline.single { it.name == "json-to-100" }.fromSeconds, first.fromSeconds)
        assertEquals(profile.timeline.single { it.name == "json-at-100" }.toSeconds, first.toSeconds)
        assertEquals(emptyList(), VegetaAttack.allOf(smoke.timeline), "k6 offers the curve unless the profile says otherwise")
    }

    @Test
    fun `a steady json phase given to vegeta is one attack of its own seconds, after k6's warm-up, the only json phase k6 offers`() {
        val profile = smoke.copy(
            jsonGenerator = Profile.VEGETA,
            curveGenerator = Profile.VEGETA,
            jsonCurveRatesPerSecond = listOf(100, 900),
        )
        val steady = profile.timeline.single { it.name == "json" }
        assertEquals(Profile.VEGETA, steady.generator)
        assertEquals(Profile.K6, profile.timeline.single { it.name == "json-warmup" }.generator, "a warm-up ramps, which only k6 offers")
        assertTrue(profile.offersVegeta)

        val attacks = VegetaAttack.allOf(profile.timeline)
        assertEquals(listOf("json", "json-at-100", "json-at-900", "dashboard-at-20"), attacks.map { it.step })
        assertEquals(VegetaAttack("json", "json", profile.jsonRatePerSecond, steady.fromSeconds, steady.toSeconds), attacks.first())
        assertEquals(K6Plan.vusFor(profile.jsonRatePerSecond), K6Plan.of(profile, 300, "http://127.0.0.1:1").jsonVus, "the warm-up's top")
        assertTrue(!smoke.offersVegeta, "k6 offers every phase unless the profile says otherwise")
    }

    @Test
    fun `a search's slots follow each endpoint's ladder, the first settling as a first step does, and vegeta offers them`() {
        val profile = smoke.copy(curveGenerator = Profile.VEGETA, curveSearchSteps = 2, curveFirstSettleSeconds = 10)
        val curve = profile.timeline.dropWhile { it.name != "dashboard" }.drop(1)
        assertEquals(
            listOf(
                "json-to-100", "json-at-100", "json-to-200", "json-at-200",
                "json-to-search-1", "json-search-1", "json-to-search-2", "json-search-2", "json-to-full", "json-full",
                "dashboard-to-20", "dashboard-at-20",
                "dashboard-to-search-1", "dashboard-search-1", "dashboard-to-search-2", "dashboard-search-2",
            ),
            curve.map { it.name },
        )
        val slots = curve.filter { it.searched }
        assertTrue(
            slots.all {
                it.ratePerSecond == 0 && it.generator == Profile.VEGETA
            },
            "a slot's rate is chosen as the pass runs: $slots",
        )
        assertEquals(listOf(10, 2), slots.filter { it.endpoint == "json" && "-to-" in it.name }.map { it.toSeconds - it.fromSeconds })
        assertEquals(
            listOf(1, 2, null),
            listOf("json-search-1", "dashboard-search-2", "json-to-search-1").map { name ->
                LoadTimeline.searchSlot(curve.single { it.name == name })
            },
        )
        val attacks = VegetaAttack.allOf(profile.timeline)
        assertEquals(listOf(false, false, true, true, false, true, true), attacks.map { it.searched })
        val slot = attacks.first { it.searched }
        assertEquals(
            curve.single {
                it.name == "json-to-search-1"
            }.fromSeconds,
            slot.fromSeconds,
            "an attack starts with its slot's settling",
        )
    }

    @Test
    fun `the full step follows the json ladder and its search, offered by wrk alone, as long as the profile says`() {
        val profile = smoke.copy(curveGenerator = Profile.VEGETA, curveSearchSteps = 1, jsonFullStepSeconds = 7)
        val timeline = profile.timeline
        val names = timeline.map { it.name }
        assertEquals(
            listOf("json-search-1", "json-to-full", "json-full", "dashboard-to-20"),
            names.subList(
                names.indexOf("json-search-1"),
                names.indexOf("dashboard-to-20") + 1,
            ),
        )
        val (settle, full) = timeline.single { it.name == "json-to-full" } to timeline.single { it.name == "json-full" }
        assertEquals(
            listOf(LoadTimeline.CURVE_SETTLE_SECONDS, 7 - LoadTimeline.CURVE_SETTLE_SECONDS),
            listOf(settle, full).map {
                it.toSeconds -
                    it.fromSeconds
            },
        )
        assertTrue(listOf(settle, full).all { it.generator == Profile.WRK && it.ratePerSecond == 0 && it.endpoint == "json" })
        assertEquals(listOf(false, true), listOf(settle, full).map(LoadTimeline::isFullStep))
        assertTrue(profile.offersWrk)
        assertTrue(VegetaAttack.allOf(timeline).none { "full" in it.step }, "vegeta offers nothing in the full step")
        assertTrue(
            !profile.copy(jsonFullStepSeconds = 0).offersWrk && profile.copy(jsonFullStepSeconds = 0).timeline.none {
                "full" in it.name
            },
        )
    }

    @Test
    fun `a pass's timeline names a slot for the rate chosen for it, and refuses a rate a step already has`() {
        val profile = smoke.copy(curveGenerator = Profile.VEGETA, curveSearchSteps = 2)
        val pass = PassTimeline(profile.timeline)
        val slot = pass.phases.single { it.name == "json-search-1" }
        val offered = pass.offer(slot, 150)
        assertEquals(
            LoadPhase("json-at-150", slot.fromSeconds, slot.toSeconds, "json", 150, generator = Profile.VEGETA, searched = true),
            offered,
        )
        val names = pass.phases.map { it.name }
        assertEquals(
            listOf("json-to-150", "json-at-150", "json-to-search-2"),
            names.subList(
                names.indexOf("json-to-150"),
                names.indexOf("json-to-150") + 3,
            ),
        )
        assertEquals(
            profile.timeline.map {
                it.fromSeconds to it.toSeconds
            },
            pass.phases.map { it.fromSeconds to it.toSeconds },
            "only names and rates change",
        )
        assertEquals(offered, pass.named("json-at-150"), "the wire's reader finds the step by its new name")
        assertEquals(null, pass.named("json-search-1"), "and no longer by the slot's")
        assertThrows<IllegalArgumentException> { pass.offer(pass.phases.single { it.name == "json-search-2" }, 200) }
        assertThrows<IllegalArgumentException> { pass.offer(pass.phases.single { it.name == "json-at-100" }, 120) }
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
    fun `warm sockets follow every request, a step's hold at rest and then the cold steps again, with no request offered in them`() {
        val warm = smoke.copy(warmSockets = true)
        val names = warm.timeline.map { it.name }
        val rest = names.indexOf("warm-sockets-rest")
        assertEquals(listOf("warm-sockets-rest", "warm-sockets-step-1", "warm-sockets-step-2"), names.drop(rest))
        val after = warm.timeline.drop(rest)
        assertTrue(after.all { it.endpoint == null && it.toSeconds - it.fromSeconds == warm.stepHoldSeconds }, after.toString())
        assertEquals(after.first().fromSeconds, warm.requestsEndSeconds, "they start where the last request phase ends")
        assertEquals(after.last().toSeconds, warm.durationSeconds)
        assertEquals(warm.timeline.take(rest), smoke.timeline, "and move nothing before them")
    }

    @Test
    fun `a headline of warm sockets needs warm sockets, and a warmth is cold or warm`(@TempDir dir: File) {
        val text = File(profiles, "smoke.json").readText()
        val warm = text.replace("\"socketsHeadline\": \"cold\"", "\"socketsHeadline\": \"warm\"")
        File(dir, "nowarm.json").writeText(warm.replace("\"warmSockets\": true", "\"warmSockets\": false"))
        File(dir, "tepid.json").writeText(text.replace("\"socketsHeadline\": \"cold\"", "\"socketsHeadline\": \"tepid\""))
        val nowarm = assertThrows<BadInput> { Profile.load(dir, "nowarm") }
        assertTrue("socketsHeadline \"warm\" needs warmSockets true" in nowarm.message!!, nowarm.message)
        val tepid = assertThrows<BadInput> { Profile.load(dir, "tepid") }
        assertTrue("socketsHeadline must be one of cold, warm, not \"tepid\"" in tepid.message!!, tepid.message)
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
        val falling = assertThrows<BadInput> { Profile.load(dir, "falling") }
        assertTrue("jsonCurveRatesPerSecond must rise" in falling.message!!, falling.message)
        val unbound = assertThrows<BadInput> { Profile.load(dir, "unbound") }
        assertTrue("dashboardCurveP99BoundMs must be above 0" in unbound.message!!, unbound.message)
        val short = assertThrows<BadInput> { Profile.load(dir, "short") }
        assertTrue("curveStepSeconds must be at least 4" in short.message!!, short.message)
        File(dir, "k6search.json").writeText(text.replace("\"curveStepSeconds\"", "\"curveSearchSteps\": 3, \"curveStepSeconds\""))
        val k6search = assertThrows<BadInput> { Profile.load(dir, "k6search") }
        assertTrue("curveSearchSteps needs curveGenerator \"vegeta\"" in k6search.message!!, k6search.message)
    }
}
