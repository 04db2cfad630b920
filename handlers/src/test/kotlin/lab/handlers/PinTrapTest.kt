package lab.handlers

import org.junit.jupiter.api.Test
import kotlin.system.measureTimeMillis
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
}
