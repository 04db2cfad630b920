package lab.bench.load

import lab.bench.collect.RunClock
import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertNull

/** What each planned attack offers when its time comes: the ladder as planned, and no search without a wire to guide it. */
class VegetaAttackChoiceTest {
    private val smoke = Profile.load(File(System.getProperty("lab.root"), "loadtests/profiles"), "smoke")
    private val profile = smoke.copy(curveGenerator = Profile.VEGETA, curveSearchSteps = 3, jsonCurveRatesPerSecond = listOf(100, 200, 400))

    @Test
    fun `without a search the ladder runs as planned, the slots offer nothing, and the pass is told once`() {
        val clock = RunClock(profile).apply { markLoadStart() }
        val notes = mutableListOf<String>()
        val choice = VegetaAttackChoice(clock, search = null) { notes += it }
        val attacks = VegetaAttack.allOf(profile.timeline)
        val (slots, ladder) = attacks.partition { it.searched }
        assertEquals(2 * profile.curveSearchSteps, slots.size, "three for each endpoint")
        assertEquals(ladder, ladder.map { choice.offered(it) })
        slots.forEach { assertNull(choice.offered(it), it.step) }
        assertEquals(1, notes.size, "one note a pass, not one a slot: $notes")
        assertEquals(profile.timeline, clock.timeline.phases, "no slot was named for a rate")
    }
}
