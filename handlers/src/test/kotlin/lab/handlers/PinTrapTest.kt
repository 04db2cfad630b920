package lab.handlers

import org.junit.jupiter.api.Test
import kotlin.system.measureTimeMillis
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class PinTrapTest {
    @Test
    fun `every trap blocks its caller for at least the time asked`() {
        for (trap in PinTrap.entries) {
            val tookMs = measureTimeMillis { trap.spring(30) }
            assertTrue(tookMs >= 30, "$trap blocked only $tookMs ms")
        }
    }

    @Test
    fun `the class-init trap blocks on every call, not only the first`() {
        repeat(3) {
            val tookMs = measureTimeMillis { PinTrap.CLASS_INIT.spring(20) }
            assertTrue(tookMs >= 20, "call $it blocked only $tookMs ms")
        }
    }

    @Test
    fun `every trap has a fixed twin that never pins, and says how it fixes it`() {
        val (fixed, traps) = PinTrap.entries.partition { it.isFixed }
        assertEquals(traps.map { it.slug }, fixed.map { it.fix }, "each -fixed twin names its trap in `fix`")
        assertEquals(traps.map { "${it.slug}-fixed" }, fixed.map { it.slug })
        assertTrue(fixed.none { it.pinsOn(21) || it.pinsOn(25) })
        assertTrue(traps.all { it.fix.isNotBlank() && it.pinsOn(21) })
    }
}
