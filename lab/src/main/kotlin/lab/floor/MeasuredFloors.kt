package lab.floor

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import lab.bench.folder.RunFolderFormat
import lab.floor.tasks.Warmth
import lab.support.Collector
import lab.support.Provenance
import java.io.File

/**
 * The whole `make floor` folders of a results folder, and which of them measured what a bench run's report needs: `make bench`
 * measures its floor first only where none did (`make floor --unless-measured`). Whole: a floor.csv, a manifest that says
 * complete, in this run-folder format. The report picks among the same folders by the same rule
 * (labanalysis.folder.floor_folders.covering): the newest, which comes last.
 */
object MeasuredFloors {
    const val SUFFIX = "-floor"

    /**
     * The whole floors in [resultsDir] that parked tasks of each of [models] in each of [warmths] on JDK [jdkFeature] under
     * [collector], oldest first.
     */
    fun covering(
        resultsDir: File,
        jdkFeature: Int,
        collector: Collector,
        models: Collection<String>,
        warmths: Collection<String>,
    ): List<File> =
        resultsDir.listFiles().orEmpty().filter { it.isDirectory && it.name.endsWith(SUFFIX) }.sortedBy { it.name }.filter { folder ->
            val measured = read(folder) ?: return@filter false
            measured.provenance.status == Provenance.COMPLETE &&
                measured.runFolderFormat == RunFolderFormat.version &&
                File(folder, FloorCsv.FILE).isFile &&
                measured.collector == collector.slug &&
                measured.jdks.any { it.feature == jdkFeature } &&
                measured.settings.models.containsAll(models) &&
                measured.settings.warmths.containsAll(warmths)
        }

    /** What a floor's manifest says it measured; null where there is none, or it is not a floor's. */
    private fun read(folder: File): Measured? = runCatching {
        JSON.decodeFromString(Measured.serializer(), File(folder, "manifest.json").readText())
    }.getOrNull()

    private val JSON = Json { ignoreUnknownKeys = true }

    /** The properties of [FloorManifest] the rule reads, with what a floor from before the collector or the warmth was an axis means. */
    @Serializable
    private data class Measured(
        val provenance: Status,
        val runFolderFormat: Int? = null,
        val collector: String = Collector.ZGC.slug,
        val jdks: List<Feature>,
        val settings: Settings,
    ) {
        @Serializable
        data class Status(val status: String)

        @Serializable
        data class Feature(val feature: Int)

        @Serializable
        data class Settings(val models: List<String>, val warmths: List<String> = listOf(Warmth.WARM.slug))
    }
}
