package lab.bench

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class RateCalibrationTest {
    @Test
    fun `a rate that was not sustained is lowered by a fifth, in steps of 50`() {
        assertEquals(1600, RateCalibration.lower(2000))
        assertEquals(1250, RateCalibration.lower(1600))
        assertEquals(950, RateCalibration.lower(1200))
    }

    @Test
    fun `the search always ends, since lowering stops at the floor`() {
        var rate = 2000
        var steps = 0
        while (rate > RateCalibration.MIN_RATE_PER_SECOND) {
            val lower = RateCalibration.lower(rate)
            assertTrue(lower < rate, "$rate -> $lower")
            rate = lower
            steps++
        }
        assertEquals(RateCalibration.MIN_RATE_PER_SECOND, rate)
        assertTrue(steps < 20, "$steps steps")
    }
}
