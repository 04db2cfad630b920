package lab.bench.collect

import lab.bench.load.Profile
import java.io.File
import java.time.Instant
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class RunClockTest {
    private val profile = Profile.load(File(System.getProperty("lab.root"), "loadtests/profiles"), "smoke")

    /** A monotonic clock and a wall clock the test moves by hand; the wall clock starts at an arbitrary epoch time. */
    private class Host {
        var monotonicNs = 5_000_000_000L
        var wallMovedNs = 0L
        val wallAtStart: Instant = Instant.parse("2026-12-03T15:07:53Z")

        fun wall(): Instant = wallAtStart.plusNanos(monotonicNs - 5_000_000_000L + wallMovedNs)

        fun advance(seconds: Double) {
            monotonicNs += (seconds * 1e9).toLong()
        }
    }

    private fun clockOn(host: Host) = RunClock(profile, host::wall, host::monotonicNs)

    @Test
    fun `a wall-clock stamp lands where it was taken on the monotonic axis, before and after the wall clock moves`() {
        val host = Host()
        val clock = clockOn(host)
        host.advance(100.0)
        val before = host.wall()
        assertEquals(100.0, clock.secondsAt(before))

        host.advance(20.0)
        host.wallMovedNs += 3_500_000_000L // the wall clock jumps 3.5 s ahead
        assertEquals(120.0, clock.seconds())
        host.advance(10.0)
        val after = host.wall()

        assertEquals(130.0, clock.secondsAt(after), "a stamp taken after the move, its move undone")
        assertEquals(100.0, clock.secondsAt(before), "a stamp taken before the move, as it was")
        assertEquals(listOf(WallClockStep(120.0, 3_500)), clock.wallClockSteps)
    }

    @Test
    fun `a reader of live stamps is the first to see a move`() {
        val host = Host()
        val clock = clockOn(host)
        host.advance(50.0)
        host.wallMovedNs += 19_000_000_000L
        // No reading of the axis since the move: the stamp's own conversion notes it.
        assertEquals(50.0, clock.secondsAt(host.wall()))
        assertEquals(listOf(WallClockStep(50.0, 19_000)), clock.wallClockSteps)
    }

    @Test
    fun `moves add up, each undone for the stamps after it`() {
        val host = Host()
        val clock = clockOn(host)
        host.advance(125.0)
        host.wallMovedNs += 3_500_000_000L
        clock.seconds()
        host.advance(10.0)
        val between = host.wall()
        host.advance(50.0)
        host.wallMovedNs += 19_000_000_000L
        clock.seconds()
        host.advance(10.0)

        assertEquals(135.0, clock.secondsAt(between))
        assertEquals(195.0, clock.secondsAt(host.wall()))
        assertEquals(listOf(3_500L, 19_000L), clock.wallClockSteps.map { it.movedMs })
    }

    @Test
    fun `a slew of the wall clock is no move`() {
        val host = Host()
        val clock = clockOn(host)
        repeat(60) {
            host.advance(1.0)
            host.wallMovedNs += 500_000 // half a millisecond a second, a time service's most
            clock.seconds()
        }
        assertTrue(clock.wallClockSteps.isEmpty())
    }

    @Test
    fun `a move back puts a stamp from the seconds it repeats after the move`() {
        val host = Host()
        val clock = clockOn(host)
        host.advance(100.0)
        val longBefore = host.wall()
        host.advance(9.0)
        val justBefore = host.wall()
        host.advance(1.0)
        host.wallMovedNs -= 2_000_000_000L
        clock.seconds()
        host.advance(5.0)

        assertEquals(100.0, clock.secondsAt(longBefore))
        assertEquals(111.0, clock.secondsAt(justBefore), "its wall-clock time came again after the move: taken for the later")
        assertEquals(115.0, clock.secondsAt(host.wall()))
        assertEquals(listOf(WallClockStep(110.0, -2_000)), clock.wallClockSteps)
    }

    @Test
    fun `JFR's stamps stay on the wall clock as the recording started`() {
        val host = Host()
        val clock = clockOn(host)
        host.advance(30.0)
        val jfrStamp = host.wallAtStart.plusSeconds(30) // by the CPU's ticks from the start's wall-clock reading
        host.wallMovedNs += 3_500_000_000L
        clock.seconds()
        assertEquals(30.0, clock.secondsAtJfr(jfrStamp))
    }
}
