package lab.bench.folder

import de.siegmar.fastcsv.writer.CsvWriter
import de.siegmar.fastcsv.writer.LineDelimiter
import java.io.File
import java.io.FileWriter
import java.io.Writer

/**
 * One CSV series of a pass's folder, written as [RunFolderFormat] declares it: the header from the declaration, and every row
 * checked against it, so a writer that drifts from the declaration fails in the harness's tests, not in the analysis. A cell
 * is its value's `toString()` (a Kotlin `Double` as Kotlin prints it); null is an empty cell, which the declaration must allow.
 * LF line ends, as the lab's files have always had (fastcsv's default is CRLF). Rows may come from several threads.
 */
class SeriesCsv(
    out: Writer,
    val name: String,
    private val flushEachRow: Boolean = false,
    header: Boolean = true,
    series: RunFolderFormat.Series = RunFolderFormat.series(name),
) : AutoCloseable {
    val columns: List<String> = series.columns.keys.toList()
    private val optional: Set<Int> = series.optional.map(columns::indexOf).toSet()
    private val csv = CsvWriter.builder().lineDelimiter(LineDelimiter.LF).build(out)

    init {
        if (header) csv.writeRecord(columns)
    }

    fun row(vararg cells: Any?) {
        require(cells.size == columns.size) {
            "$name: a row of ${cells.size} cells, where run-folder.json declares ${columns.size}: $columns"
        }
        cells.forEachIndexed { i, cell ->
            require(cell != null || i in optional) { "$name: ${columns[i]} has no value, and run-folder.json does not let it be empty" }
        }
        synchronized(csv) {
            csv.writeRecord(cells.map { it?.toString() ?: "" })
            if (flushEachRow) csv.flush()
        }
    }

    fun flush() = synchronized(csv) { csv.flush() }

    override fun close() = synchronized(csv) { csv.close() }

    companion object {
        /** A new file of [dir] named as the declaration names it: a pass's series, or [series] of an experiment's folder. */
        fun create(dir: File, name: String, flushEachRow: Boolean = false, series: RunFolderFormat.Series = RunFolderFormat.series(name)) =
            SeriesCsv(FileWriter(File(dir, name), Charsets.UTF_8), name, flushEachRow, series = series)

        /** [dir]'s file [name], appended to: its header first only if it is new (a pass that resumes a series keeps one header). */
        fun appending(
            dir: File,
            name: String,
            flushEachRow: Boolean = false,
            series: RunFolderFormat.Series = RunFolderFormat.series(name),
        ): SeriesCsv {
            val file = File(dir, name)
            val isNew = !file.isFile || file.length() == 0L
            return SeriesCsv(FileWriter(file, Charsets.UTF_8, true), name, flushEachRow, header = isNew, series = series)
        }
    }
}
