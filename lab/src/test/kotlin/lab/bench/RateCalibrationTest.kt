package lab.bench

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class RateCalibrationTest {
    @Test
    fun `a rate that was not sustained is lowered by a fifth, in steps of 50`() {
        assertEquals(1600, RateCalibration.next(2000, achievedPerSecond = 1996.0))
        assertEquals(1250, RateCalibration.next(1600, achievedPerSecond = null))
        assertEquals(950, RateCalibration.next(1200, achievedPerSecond = 1190.0))
    }

    @Test
    fun `a server far past its capacity is probed next just under what it achieved`() {
        assertEquals(750, RateCalibration.next(1600, achievedPerSecond = 844.0))
    }

    @Test
    fun `the search goes no lower than a quarter of the profile's rate`() {
        assertEquals(500, RateCalibration.floorOf(2000))
        assertEquals(RateCalibration.MIN_RATE_PER_SECOND, RateCalibration.floorOf(100))
    }

    @Test
    fun `the search always ends, since lowering stops at the floor`() {
        var rate = 2000
        var steps = 0
        while (rate > RateCalibration.MIN_RATE_PER_SECOND) {
            val lower = RateCalibration.next(rate, achievedPerSecond = rate.toDouble())
            assertTrue(lower < rate, "$rate -> $lower")
            rate = lower
            steps++
        }
        assertEquals(RateCalibration.MIN_RATE_PER_SECOND, rate)
        assertTrue(steps < 20, "$steps steps")
    }
}
