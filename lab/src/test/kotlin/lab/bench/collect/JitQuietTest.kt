package lab.bench.collect

import org.junit.jupiter.api.Test
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class JitQuietTest {
    @Test
    fun `a process with no compiler thread is idle once the quiet period has passed`() {
        val sleeper = ProcessBuilder("sleep", "30").start()
        try {
            val startNs = System.nanoTime()
            assertTrue(JitQuiet(sleeper.pid(), quietMs = 200, timeoutMs = 5_000).await())
            val tookMs = (System.nanoTime() - startNs) / 1_000_000
            assertTrue(tookMs in 200..2_000, "took $tookMs ms")
        } finally {
            sleeper.destroy()
        }
    }

    @Test
    fun `the wait ends at its deadline, not idle, when the deadline comes before the quiet period ends`() {
        val sleeper = ProcessBuilder("sleep", "30").start()
        try {
            val deadlineNs = System.nanoTime() + 100_000_000
            assertFalse(JitQuiet(sleeper.pid(), quietMs = 5_000, timeoutMs = 10_000).await(deadlineNs))
            val pastMs = (System.nanoTime() - deadlineNs) / 1_000_000
            assertTrue(pastMs < 4_000, "ended $pastMs ms past its deadline")
        } finally {
            sleeper.destroy()
        }
    }
}
