package lab.bench.collect

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class ProcStatTest {
    /** A two-CPU guest's /proc/stat, captured, and the same host one second later. */
    private val before = ProcStat.parse(
        """
        cpu  2628418 1753 287115 1493905 9639 0 21073 6141 0 0
        cpu0 1249231 293 138383 820320 1785 0 11010 3091 0 0
        cpu1 1379187 1459 148731 673584 7854 0 10063 3049 0 0
        intr 34308849 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 8 0 0
        ctxt 85162027
        btime 1700000000
        processes 817377
        procs_running 2
        procs_blocked 0
        softirq 12345 0 1 2 3 4 5 6 7 8
        """.trimIndent(),
    )

    /** In the second: cpu0 (the load's) 95 ticks busy of 100, cpu1 (the server's) 30 of 100, and 6 ticks of 200 stolen. */
    private val after = ProcStat.parse(
        """
        cpu  2628508 1753 287141 1493973 9646 0 21076 6147 0 0
        cpu0 1249311 293 138394 820323 1787 0 11012 3093 0 0
        cpu1 1379197 1459 148746 673649 7859 0 10064 3053 0 0
        intr 34309849 0 0 0
        """.trimIndent(),
    )

    @Test
    fun `reads the aggregate line and one line per CPU, steal column included`() {
        assertEquals(ProcStat.Ticks(2628418, 1753, 287115, 1493905, 9639, 0, 21073, 6141), before.all)
        assertEquals(setOf(0, 1), before.byCpu.keys)
        assertEquals(3049, before.byCpu.getValue(1).steal)
    }

    @Test
    fun `the steal share is stolen ticks over all ticks of the interval`() {
        assertEquals(6.0 / 200, after.stealShare(before)!!, 1e-9)
    }

    @Test
    fun `a CPU set's steal share is its own stolen ticks, which its busy share counts too`() {
        assertEquals(2.0 / 100, after.stealShare(before, listOf(0))!!, 1e-9)
        assertEquals(4.0 / 100, after.stealShare(before, listOf(1))!!, 1e-9)
        assertEquals(after.stealShare(before)!!, after.stealShare(before, listOf(0, 1))!!, 1e-9)
        assertNull(after.stealShare(before, listOf(2)))
    }

    @Test
    fun `a CPU set's busy share counts everything but idle and iowait`() {
        assertEquals(95.0 / 100, after.busyShare(before, listOf(0))!!, 1e-9)
        assertEquals(30.0 / 100, after.busyShare(before, listOf(1))!!, 1e-9)
        assertEquals(125.0 / 200, after.busyShare(before, listOf(0, 1))!!, 1e-9)
    }

    @Test
    fun `a CPU that is in only one reading drops out, and no shared CPU gives no share`() {
        val cpu1Offline = ProcStat(after.all, after.byCpu - 1)
        assertEquals(95.0 / 100, cpu1Offline.busyShare(before, listOf(0, 1))!!, 1e-9)
        assertNull(cpu1Offline.busyShare(before, listOf(1)))
    }

    @Test
    fun `no time between two readings gives no share, not a division by zero`() {
        assertNull(before.stealShare(before))
        assertNull(before.busyShare(before, listOf(0)))
    }

    @Test
    fun `idle that steps back is clamped so that a share stays within 0 and 1`() {
        val idleBack = ProcStat.parse("cpu  100 0 0 50 0 0 0 0\ncpu0 100 0 0 50 0 0 0 0")
        val later = ProcStat.parse("cpu  110 0 0 49 0 0 0 0\ncpu0 110 0 0 49 0 0 0 0")
        assertEquals(1.0, later.busyShare(idleBack, listOf(0))!!, 1e-9)
    }

    @Test
    fun `a kernel without the later columns reads them as 0`() {
        assertEquals(0, ProcStat.parse("cpu  1 2 3 4\ncpu0 1 2 3 4").all.steal)
    }

    @Test
    fun `this host's own file parses, with its CPUs' lines`() {
        val stat = ProcStat.read()
        assertTrue(stat.all.total > 0 && stat.byCpu.isNotEmpty(), "${stat.byCpu.keys}")
    }
}
