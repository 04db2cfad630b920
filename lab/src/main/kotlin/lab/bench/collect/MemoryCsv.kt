package lab.bench.collect

import de.siegmar.fastcsv.writer.CsvWriter
import de.siegmar.fastcsv.writer.LineDelimiter
import java.io.File
import java.io.FileWriter

/**
 * A pass's `memory.csv` (`time_s,phase,sockets_open,component,bytes`, a row per component)
 * and `histogram.csv` (`time_s,sockets_open,rank,class,instances,bytes`, a row per class of
 * the largest): appended a snapshot at a time and flushed at once, so a pass cut short keeps
 * every snapshot it took. Facts only; the analysis fits the slopes.
 */
class MemoryCsv(dir: File) : AutoCloseable {
    private val memory = appending(File(dir, "memory.csv"), MEMORY_COLUMNS)
    private val histogram = appending(File(dir, "histogram.csv"), HISTOGRAM_COLUMNS)

    fun append(snapshot: MemorySnapshot) {
        val time = snapshot.timeS.toString()
        val sockets = snapshot.socketsOpen.toString()
        for ((component, bytes) in snapshot.componentBytes) {
            memory.writeRecord(time, snapshot.phase, sockets, component, bytes.toString())
        }
        for (row in snapshot.largestClasses) {
            histogram.writeRecord(time, sockets, row.rank.toString(), row.className, row.instances.toString(), row.bytes.toString())
        }
        memory.flush()
        histogram.flush()
    }

    override fun close() {
        memory.close()
        histogram.close()
    }

    companion object {
        val MEMORY_COLUMNS = listOf("time_s", "phase", "sockets_open", "component", "bytes")
        val HISTOGRAM_COLUMNS = listOf("time_s", "sockets_open", "rank", "class", "instances", "bytes")

        /** A writer at the end of [file], with its header first if the file is new. */
        private fun appending(file: File, columns: List<String>): CsvWriter {
            val isNew = !file.isFile || file.length() == 0L
            // LF, as the harness's other CSV files end their lines (fastcsv's default is CRLF).
            val writer = CsvWriter.builder().lineDelimiter(LineDelimiter.LF).build(FileWriter(file, Charsets.UTF_8, true))
            if (isNew) writer.writeRecord(columns)
            return writer
        }
    }
}
