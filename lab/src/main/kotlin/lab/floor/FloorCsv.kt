package lab.floor

import lab.bench.folder.RunFolderFormat
import lab.bench.folder.SeriesCsv
import lab.floor.tasks.StepMeasurement
import java.io.File

/**
 * `floor.csv` of a run: one row per measured step of every JVM that ran to its end, appended as
 * each one ends, so a run cut short keeps what it measured. Facts only, with units in the names,
 * in the columns run-folder.json declares (`experiments.floor`); the analysis
 * (analysis/labanalysis/floor/floor.py) fits the slopes.
 */
class FloorCsv(private val file: File) {
    init {
        file.delete()
        open().close() // the header alone, so that a run whose every JVM failed still has the file
    }

    fun append(cell: FloorCell, steps: List<StepMeasurement>) = open().use { csv ->
        for (s in steps) {
            csv.row(
                cell.jdk.feature, cell.jdk.version, cell.model.slug, cell.depth, cell.repeat, s.tasks, s.liveHeapBytes,
                s.rssBytes, s.pssBytes, s.nmtThreadCommittedBytes, s.nmtStackCommittedBytes, s.threads, cell.warmth.slug,
            )
        }
    }

    private fun open() = SeriesCsv.appending(file.parentFile, file.name, series = RunFolderFormat.experiment(KIND, file.name))

    companion object {
        const val KIND = "floor"
        const val FILE = "floor.csv"
    }
}
