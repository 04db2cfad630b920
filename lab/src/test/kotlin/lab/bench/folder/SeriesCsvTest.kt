package lab.bench.folder

import de.siegmar.fastcsv.reader.CsvReader
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class SeriesCsvTest {
    @TempDir
    lateinit var dir: File

    private fun records(file: File): List<List<String>> =
        CsvReader.builder().ofCsvRecord(file.toPath()).use { rows -> rows.map { it.fields }.toList() }

    @Test
    fun `a series is written with the declared header, and a cell as its value prints`() {
        SeriesCsv.create(dir, "pinned.csv").use { it.row(1.5, "json", 21.0, "a.B.c < d.E.f, with a comma") }

        assertEquals(
            listOf(RunFolderFormat.columns("pinned.csv"), listOf("1.5", "json", "21.0", "a.B.c < d.E.f, with a comma")),
            records(File(dir, "pinned.csv")),
        )
        assertTrue(File(dir, "pinned.csv").readText().endsWith("\n") && !File(dir, "pinned.csv").readText().contains("\r"))
    }

    @Test
    fun `an optional column may be empty, and no other`() {
        SeriesCsv.create(dir, "load.csv").use {
            it.row(1.0, "json", 10, 20, 19.5, null)
            val refused = assertFailsWith<IllegalArgumentException> { it.row(null, "json", 10, 20, 19.5, 3.0) }
            assertEquals("load.csv: time_s has no value, and run-folder.json does not let it be empty", refused.message)
        }

        assertEquals(listOf("1.0", "json", "10", "20", "19.5", ""), records(File(dir, "load.csv"))[1])
    }

    @Test
    fun `a row of another width than the declaration's is refused`() {
        SeriesCsv.create(dir, "wire.csv").use {
            val refused = assertFailsWith<IllegalArgumentException> { it.row(1.0, "json", 0.2) }
            assertTrue(refused.message!!.startsWith("wire.csv: a row of 3 cells, where run-folder.json declares 4"), refused.message)
        }
    }

    @Test
    fun `appending to a series keeps one header`() {
        SeriesCsv.appending(dir, "memory.csv").use { it.row(1.0, "sockets", 0, "heap", 100) }
        SeriesCsv.appending(dir, "memory.csv").use { it.row(2.0, "sockets", 10, "heap", 200) }

        val rows = records(File(dir, "memory.csv"))
        val header = RunFolderFormat.columns("memory.csv")
        assertEquals(listOf(header, listOf("1.0", "sockets", "0", "heap", "100"), listOf("2.0", "sockets", "10", "heap", "200")), rows)
    }

    @Test
    fun `a series the declaration does not name cannot be written`() {
        val refused = assertFailsWith<IllegalStateException> { SeriesCsv.create(dir, "threads.csv") }
        assertEquals("run-folder.json declares no series threads.csv: declare it there first", refused.message)
    }

    @Test
    fun `a declaration with an unknown type, or an optional column it lacks, is refused naming it`() {
        fun declared(columns: String, optional: String) =
            """{"about": "", "fields": {}, "version": 1, "series": {"x.csv": {"about": "", "columns": $columns, "optional": $optional}}}"""

        val typed = assertFailsWith<IllegalArgumentException> { RunFolderFormat.parse(declared("""{"a": "float"}""", "[]")) }
        assertEquals("run-folder.json: x.csv's column a is of type 'float', none of number, text", typed.message)
        val optional = assertFailsWith<IllegalArgumentException> { RunFolderFormat.parse(declared("""{"a": "text"}""", """["b"]""")) }
        assertEquals("run-folder.json: x.csv's optional columns [b] are not among its columns", optional.message)
    }

    @Test
    fun `an experiment's file is written with its declared header, and checked as a pass's series is`() {
        val floor = RunFolderFormat.experiment("floor", "floor.csv")
        SeriesCsv.create(dir, "floor.csv", series = floor).use { it.row(25, "25.0.3", "virtual", 0, 1, 0, 1L, 2L, 3L, 4L, 5L, 6, "warm") }

        assertEquals(
            listOf(floor.columns.keys.toList(), listOf("25", "25.0.3", "virtual", "0", "1", "0", "1", "2", "3", "4", "5", "6", "warm")),
            records(File(dir, "floor.csv")),
        )
        val empty = assertFailsWith<IllegalArgumentException> {
            SeriesCsv.create(dir, "floor.csv", series = floor).use { it.row(25, null, "virtual", 0, 1, 0, 1L, 2L, 3L, 4L, 5L, 6, "cold") }
        }
        assertEquals("floor.csv: jdk_version has no value, and run-folder.json does not let it be empty", empty.message)
        val unknown = assertFailsWith<IllegalStateException> { RunFolderFormat.experiment("sweep", "floor.csv") }
        assertEquals("run-folder.json declares no sweep file floor.csv: declare it there first", unknown.message)
    }

    @Test
    fun `an experiment's file is held to the declaration's types too`() {
        val text = """{"about": "", "fields": {}, "version": 1, "series": {}, "experiments": {"sweep": {"s.csv": """ +
            """{"about": "", "columns": {"a": "float"}, "optional": []}}}}"""

        val typed = assertFailsWith<IllegalArgumentException> { RunFolderFormat.parse(text) }
        assertEquals("run-folder.json: sweep/s.csv's column a is of type 'float', none of number, text", typed.message)
    }
}
