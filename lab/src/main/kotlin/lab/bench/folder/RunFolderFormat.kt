package lab.bench.folder

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json

/**
 * The run folder's declared format: `run-folder.json` at the repository root, packed into the jar (as servers.json is), so
 * a harness shipped without the repository writes the format it was built with. Every CSV series of a pass takes its header
 * from here ([SeriesCsv]), and the manifest records [version]; the analysis reads the same declaration (labanalysis.folder.series).
 */
object RunFolderFormat {
    val declaration: Declaration by lazy {
        val text = RunFolderFormat::class.java.getResource("/run-folder.json")?.readText()
            ?: error("run-folder.json is not on the classpath: rebuild with `make build`")
        parse(text)
    }

    /** The format's number, which the manifest records as `runFolderFormat`. */
    val version: Int get() = declaration.version

    /** [file]'s columns, in order; a file the declaration does not name is a mistake in the harness. */
    fun columns(file: String): List<String> = series(file).columns.keys.toList()

    /** The pass's series [file]. */
    fun series(file: String): Series = declaration.series[file] ?: error("run-folder.json declares no series $file: declare it there first")

    /** The CSV [file] of an experiment's folder ([kind]: `sweep` or `floor`). */
    fun experiment(kind: String, file: String): Series =
        declaration.experiments[kind]?.get(file) ?: error("run-folder.json declares no $kind file $file: declare it there first")

    fun parse(text: String): Declaration {
        val declared = Json.decodeFromString(Declaration.serializer(), text)
        val everySeries = declared.series + declared.experiments.flatMap { (kind, files) -> files.mapKeys { "$kind/${it.key}" }.toList() }
        for ((file, series) in everySeries) {
            require(series.columns.isNotEmpty()) { "run-folder.json: $file declares no column" }
            series.columns.forEach { (column, type) ->
                require(type in TYPES) { "run-folder.json: $file's column $column is of type '$type', none of ${TYPES.joinToString()}" }
            }
            val unknown = series.optional - series.columns.keys
            require(unknown.isEmpty()) { "run-folder.json: $file's optional columns $unknown are not among its columns" }
        }
        return declared
    }

    private val TYPES = setOf("number", "text")

    /** The file's shape; `about` and `fields` document it for a reader. */
    @Serializable
    class Declaration(
        val about: String,
        val fields: Map<String, String>,
        val version: Int,
        val series: Map<String, Series>,
        val experiments: Map<String, Map<String, Series>> = emptyMap(),
    )

    /** One CSV: its columns in order with their types, and those a row may leave empty. */
    @Serializable
    class Series(val about: String, val columns: Map<String, String>, val optional: List<String>)
}
