package lab.bench.collect

import org.junit.jupiter.api.Test
import java.io.File
import java.nio.file.Files
import kotlin.test.assertEquals

class MemoryCsvTest {
    private val dir = Files.createTempDirectory("memory-csv").toFile().apply { deleteOnExit() }

    private fun snapshot(timeS: Double, sockets: Int) = MemorySnapshot(
        timeS,
        "sockets-step-1",
        sockets,
        linkedMapOf("live_heap" to 1000L + sockets, "rss" to 5000L),
        listOf(HeapHistogram.Row(1, "[B", 3, 900), HeapHistogram.Row(2, "lab.A,B", 1, 16)),
    )

    @Test
    fun `memory csv has a row per component, histogram csv a row per class, each under one header`() {
        MemoryCsv(dir).use {
            it.append(snapshot(1.5, 0))
            it.append(snapshot(12.25, 100))
        }

        assertEquals(
            listOf(
                "time_s,phase,sockets_open,component,bytes",
                "1.5,sockets-step-1,0,live_heap,1000",
                "1.5,sockets-step-1,0,rss,5000",
                "12.25,sockets-step-1,100,live_heap,1100",
                "12.25,sockets-step-1,100,rss,5000",
            ),
            File(dir, "memory.csv").readLines(),
        )
        assertEquals(
            listOf(
                "time_s,sockets_open,rank,class,instances,bytes",
                "1.5,0,1,[B,3,900",
                "1.5,0,2,\"lab.A,B\",1,16",
                "12.25,100,1,[B,3,900",
                "12.25,100,2,\"lab.A,B\",1,16",
            ),
            File(dir, "histogram.csv").readLines(),
        )
    }

    @Test
    fun `a snapshot is in the files as soon as it is appended, before they are closed`() {
        val csv = MemoryCsv(dir)
        csv.append(snapshot(2.0, 7))
        assertEquals("2.0,sockets-step-1,7,rss,5000", File(dir, "memory.csv").readLines().last())
        csv.close()
    }

    @Test
    fun `files reopened for the same pass are appended to, under their one header`() {
        MemoryCsv(dir).use { it.append(snapshot(1.0, 0)) }
        MemoryCsv(dir).use { it.append(snapshot(2.0, 10)) }
        assertEquals(1, File(dir, "memory.csv").readLines().count { it.startsWith("time_s") })
        assertEquals(5, File(dir, "memory.csv").readLines().size)
    }
}
