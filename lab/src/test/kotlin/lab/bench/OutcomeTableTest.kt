package lab.bench

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

class OutcomeTableTest {
    @Test
    fun `the figures line up under their heads whatever the servers are called`() {
        val outcomes = listOf(
            ServerOutcome(server = "a", status = "ok", seconds = 1.0, peakThreads = 40),
            ServerOutcome(server = "jetty-coroutine", repeat = 3, status = "failed", seconds = 1.0, peakThreads = 371),
        )

        val lines = OutcomeTable.of(outcomes).lines()

        assertEquals(3, lines.size, lines.joinToString("\n"))
        val jfr = lines.map { it.indexOf(" on ").takeIf { at -> at >= 0 } ?: it.indexOf("JFR") - 1 }
        assertEquals(listOf("jetty-coroutine #3".length), jfr.toSet().toList(), lines.joinToString("\n"))
        val threads = lines.map { it.indexOf("threads").takeIf { at -> at >= 0 }?.plus("threads".length) }
        assertEquals(threads[0], lines[1].indexOf(" 40 ") + " 40".length, lines.joinToString("\n"))
        assertEquals(threads[0], lines[2].indexOf(" 371 ") + " 371".length, lines.joinToString("\n"))
    }
}
