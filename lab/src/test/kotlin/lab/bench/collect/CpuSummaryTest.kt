package lab.bench.collect

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

class CpuSummaryTest {
    private fun row(server: Double?, k6: Double?, loadBusy: Double?) =
        CpuSampler.Row(1.0, "json", server, k6, 0.1, 0.05, 0.0, 0.3, loadBusy)

    @Test
    fun `each mean is over the seconds that have the column`() {
        val summary = CpuSummary.of("json", listOf(row(0.2, 1.0, 0.95), row(0.4, null, 0.5), row(null, null, null)))
        assertEquals(3, summary.seconds)
        assertEquals(0.3, summary.serverCoresMean!!, 1e-9)
        assertEquals(1.0, summary.k6CoresMean!!, 1e-9)
        assertEquals(0.725, summary.loadCpusBusyMean!!, 1e-9)
    }

    @Test
    fun `the share of seconds counts those with the load's CPUs at least 90 percent busy`() {
        val summary = CpuSummary.of("json", listOf(0.95, 0.9, 0.89, 0.2).map { row(0.2, 1.0, it) })
        assertEquals(0.9, summary.loadCpusBusyAtLeast)
        assertEquals(0.5, summary.shareOfSecondsLoadCpusBusyAtLeast!!, 1e-9)
    }

    @Test
    fun `without a CPU split, or a process, its figures are null`() {
        val summary = CpuSummary.of("json", listOf(row(0.2, null, null)))
        assertNull(summary.k6CoresMean)
        assertNull(summary.loadCpusBusyMean)
        assertNull(summary.shareOfSecondsLoadCpusBusyAtLeast)
    }

    @Test
    fun `a phase with no seconds has no figures`() {
        val summary = CpuSummary.of("json", emptyList())
        assertEquals(0, summary.seconds)
        assertNull(summary.serverCoresMean)
    }
}
