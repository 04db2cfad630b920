package lab.bench.collect

import lab.bench.folder.SeriesCsv
import java.io.File

/**
 * A pass's `memory.csv` (a row per component) and `histogram.csv` (a row per class of the largest), as run-folder.json
 * declares them: appended a snapshot at a time and flushed at once, so a pass cut short keeps every snapshot it took. Facts
 * only; the analysis fits the slopes.
 */
class MemoryCsv(dir: File) : AutoCloseable {
    private val memory = SeriesCsv.appending(dir, "memory.csv")
    private val histogram = SeriesCsv.appending(dir, "histogram.csv")

    fun append(snapshot: MemorySnapshot) {
        val time = snapshot.timeS
        val sockets = snapshot.socketsOpen
        for ((component, bytes) in snapshot.componentBytes) {
            memory.row(time, snapshot.phase, sockets, component, bytes)
        }
        for (row in snapshot.largestClasses) {
            histogram.row(time, sockets, row.rank, row.className, row.instances, row.bytes)
        }
        memory.flush()
        histogram.flush()
    }

    override fun close() {
        memory.close()
        histogram.close()
    }
}
