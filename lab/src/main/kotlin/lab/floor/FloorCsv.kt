package lab.floor

import lab.floor.tasks.StepMeasurement
import java.io.File

/**
 * `floor.csv` of a run: one row per measured step of every JVM that ran to its end, appended as
 * each one ends, so a run cut short keeps what it measured. Facts only, with units in the names;
 * the analysis (analysis/labanalysis/floor.py) fits the slopes.
 */
class FloorCsv(private val file: File) {
    init {
        file.writeText(COLUMNS.joinToString(",") + "\n")
    }

    fun append(cell: FloorCell, steps: List<StepMeasurement>) {
        file.appendText(
            steps.joinToString("") { s ->
                listOf(
                    cell.jdk.feature, cell.jdk.version, cell.model.slug, cell.depth, cell.repeat, s.tasks, s.liveHeapBytes,
                    s.rssBytes, s.pssBytes, s.nmtThreadCommittedBytes, s.nmtStackCommittedBytes, s.threads,
                ).joinToString(",") + "\n"
            },
        )
    }

    companion object {
        val COLUMNS = listOf(
            "jdk", "jdk_version", "model", "depth", "repeat", "tasks", "live_heap_bytes", "rss_bytes", "pss_bytes",
            "nmt_thread_committed_bytes", "nmt_stack_committed_bytes", "threads",
        )
    }
}
