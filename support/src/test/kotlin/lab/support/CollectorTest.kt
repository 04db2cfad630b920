package lab.support

import org.junit.jupiter.api.Test
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Every server of a run gets one collector, named on its command line, and the JVM runs the one it was given. */
class CollectorTest {
    private val java = ProcessHandle.current().info().command().orElseThrow()

    /** The collector flags the JVM started with [flags] ended up with, from its own `-XX:+PrintFlagsFinal`. */
    private fun collectorsInUse(flags: List<String>): Set<String> {
        val process = ProcessBuilder(listOf(java) + flags + listOf("-XX:+PrintFlagsFinal", "-version")).redirectErrorStream(true).start()
        val lines = process.inputStream.bufferedReader().readLines()
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "java -version did not end")
        return COLLECTOR_FLAGS.filter { flag -> lines.any { Regex("""\b$flag\s+=\s+true\b""").containsMatchIn(it) } }.toSet()
    }

    @Test
    fun `a server's flags name exactly one collector`() {
        for (collector in Collector.entries) {
            val named = JvmFlags.forServer(512, 25, collector).filter { flag -> COLLECTOR_FLAGS.any { flag == "-XX:+$it" } }
            assertEquals(1, named.size, "$collector: $named")
        }
    }

    @Test
    fun `the JVM runs the collector it was given, on the one CPU a server has`() {
        for ((collector, flag) in mapOf(Collector.ZGC to "UseZGC", Collector.G1 to "UseG1GC")) {
            assertEquals(setOf(flag), collectorsInUse(collector.flags(25) + ONE_CPU), "$collector")
        }
    }

    @Test
    fun `G1 is named, though the JDK's default, since a JVM on one CPU would pick Serial`() {
        assertEquals(setOf("UseSerialGC"), collectorsInUse(ONE_CPU))
        assertEquals(listOf("-XX:+UseG1GC"), Collector.G1.flags(25))
    }

    @Test
    fun `ZGC on JDK 21 is asked for its generational mode, which 23 and later have alone`() {
        assertEquals(listOf("-XX:+UseZGC", "-XX:+ZGenerational"), Collector.ZGC.flags(21))
        assertEquals(listOf("-XX:+UseZGC"), Collector.ZGC.flags(25))
    }

    @Test
    fun `a collector is found by the name a command line and a manifest give it`() {
        assertEquals(Collector.G1, Collector.of("g1"))
        assertEquals(Collector.ZGC, Collector.of("zgc"))
        assertEquals(null, Collector.of("shenandoah"))
    }

    private companion object {
        val COLLECTOR_FLAGS = listOf("UseSerialGC", "UseParallelGC", "UseG1GC", "UseZGC", "UseShenandoahGC", "UseEpsilonGC")
        val ONE_CPU = listOf("-XX:ActiveProcessorCount=1")
    }
}
