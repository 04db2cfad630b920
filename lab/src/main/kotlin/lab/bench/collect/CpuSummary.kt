package lab.bench.collect

import kotlinx.serialization.Serializable

/**
 * What `cpu.csv` says over one phase of a pass, for its outcome: the mean of each column and how
 * often the load's CPUs were nearly all busy. These are facts for the report's reader and for the
 * progress summary; whether the load generator was the bottleneck is the analysis's verdict,
 * from `cpu.csv` itself. Each mean is over the seconds that have the column (null if none do).
 */
@Serializable
data class CpuSummary(
    val phase: String,
    /** Rows (seconds) of `cpu.csv` in the phase. */
    val seconds: Int,
    val serverCoresMean: Double?,
    val k6CoresMean: Double?,
    val stubCoresMean: Double?,
    val harnessCoresMean: Double?,
    val stealMean: Double?,
    val serverCpusBusyMean: Double?,
    val loadCpusBusyMean: Double?,
    /** The busy share counted in [shareOfSecondsLoadCpusBusyAtLeast]. */
    val loadCpusBusyAtLeast: Double = LOAD_CPUS_BUSY_AT_LEAST,
    /** The share (0..1) of the phase's seconds with a `load_cpus_busy` in which it was at least [loadCpusBusyAtLeast]. */
    val shareOfSecondsLoadCpusBusyAtLeast: Double?,
) {
    companion object {
        /**
         * A CPU set busy 90% of a second has no room left for a burst: k6 then sends late and
         * drops iterations. Only a line to count seconds at; the analysis decides what is saturated.
         */
        const val LOAD_CPUS_BUSY_AT_LEAST = 0.9

        fun of(phase: String, rows: List<CpuSampler.Row>): CpuSummary {
            fun mean(column: (CpuSampler.Row) -> Double?): Double? = rows.mapNotNull(column).takeIf { it.isNotEmpty() }?.average()
            val loadBusy = rows.mapNotNull { it.loadCpusBusy }
            return CpuSummary(
                phase = phase,
                seconds = rows.size,
                serverCoresMean = mean { it.serverCores },
                k6CoresMean = mean { it.k6Cores },
                stubCoresMean = mean { it.stubCores },
                harnessCoresMean = mean { it.harnessCores },
                stealMean = mean { it.steal },
                serverCpusBusyMean = mean { it.serverCpusBusy },
                loadCpusBusyMean = mean { it.loadCpusBusy },
                shareOfSecondsLoadCpusBusyAtLeast = loadBusy.takeIf { it.isNotEmpty() }
                    ?.let { busy -> busy.count { it >= LOAD_CPUS_BUSY_AT_LEAST }.toDouble() / busy.size },
            )
        }
    }
}
