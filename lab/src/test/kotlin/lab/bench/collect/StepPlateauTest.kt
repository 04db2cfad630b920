package lab.bench.collect

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals

class StepPlateauTest {
    private val mib = 1L shl 20

    @Test
    fun `a step's plateau is its last third, settled when RSS moved under 2 percent there`(@TempDir dir: File) {
        val proc = File(dir, "proc.csv")
        val load = File(dir, "load.csv")
        proc.writeText(
            buildString {
                appendLine("time_s,phase,rss_bytes,pss_bytes,threads,fds,maps")
                appendLine("0.5,startup,${100 * mib},0,20,10,100")
                // Step 1, seconds 1-9: grows, then flat over its last third (7-9).
                listOf(100, 150, 200, 240, 250, 250, 250, 251, 251).forEachIndexed { i, rss ->
                    appendLine("${i + 1}.0,sockets-step-1,${rss * mib},0,20,10,100")
                }
                // Step 2, seconds 10-18: still growing in its last third (16-18): 300 -> 330 is +10%.
                listOf(260, 270, 280, 290, 295, 300, 300, 320, 330).forEachIndexed { i, rss ->
                    appendLine("${i + 10}.0,sockets-step-2,${rss * mib},0,20,10,100")
                }
                appendLine("19.0,json,${400 * mib},0,20,10,100")
            },
        )
        load.writeText(
            """
            time_s,phase,sockets_opened_total,requests_total,requests_per_second,p95_ms_so_far
            2.0,sockets-step-1,500,0,0.0,0.0
            9.0,sockets-step-1,1000,0,0.0,0.0
            12.0,sockets-step-2,1600,0,0.0,0.0
            18.0,sockets-step-2,2000,0,0.0,0.0
            """.trimIndent() + "\n",
        )

        val steps = StepPlateau.read(proc, load)

        assertEquals(listOf(1, 2), steps.map { it.step })
        assertEquals(listOf(1000L, 2000L), steps.map { it.openSockets })
        assertEquals(listOf(251 * mib, 330 * mib), steps.map { it.rssBytes })
        assertEquals(listOf(true, false), steps.map { it.settled })
        assertEquals(100.0 * (330 - 300) / 300, steps[1].rssDriftPercent, 1e-9)
    }

    @Test
    fun `a run without socket steps has no plateaus`(@TempDir dir: File) {
        assertEquals(emptyList(), StepPlateau.read(File(dir, "proc.csv"), File(dir, "load.csv")))
    }
}
