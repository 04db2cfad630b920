package lab.bench.collect

import kotlinx.serialization.Serializable
import java.io.File
import kotlin.math.abs

/**
 * Where memory stood at the end of one socket step, and whether it had settled there: RSS
 * over the last third of the step's samples moved by less than [SETTLED_DRIFT_PERCENT]. The
 * memory-per-connection slope is fitted over these plateaus, so a step that had not settled
 * is named rather than silently fitted.
 */
@Serializable
data class StepPlateau(val step: Int, val openSockets: Long, val rssBytes: Long, val rssDriftPercent: Double, val settled: Boolean) {
    companion object {
        const val SETTLED_DRIFT_PERCENT = 2.0

        /** The plateau of every socket step, from a server's `proc.csv` and `load.csv`. */
        fun read(proc: File, load: File): List<StepPlateau> {
            val socketsByStep = rows(load).groupBy { it[1] }.mapValues { (_, rows) -> rows.maxOf { it[2].toLong() } }
            return rows(proc).filter { it[1].startsWith(STEP_PREFIX) }.groupBy { it[1] }.map { (phase, rows) ->
                // The last third of the step's samples, counted (as analysis/labanalysis/memory.py
                // does), not timed: a sample taken a few ms early still belongs to a short step's plateau.
                val samples = rows.sortedBy { it[0].toDouble() }
                val lastThird = samples.takeLast((samples.size + 2) / 3).map { it[2].toLong() }
                val drift = 100.0 * (lastThird.last() - lastThird.first()) / lastThird.first()
                StepPlateau(
                    step = phase.removePrefix(STEP_PREFIX).toInt(),
                    openSockets = socketsByStep[phase] ?: 0,
                    rssBytes = lastThird.last(),
                    rssDriftPercent = drift,
                    settled = abs(drift) < SETTLED_DRIFT_PERCENT,
                )
            }.sortedBy { it.step }
        }

        private const val STEP_PREFIX = "sockets-step-"

        private fun rows(csv: File): List<List<String>> =
            if (csv.isFile) csv.readLines().drop(1).filter { it.isNotBlank() }.map { it.split(',') } else emptyList()
    }
}
