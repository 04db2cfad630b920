package lab.floor.tasks

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.test.assertEquals

class ClassHistogramTest {
    @Test
    fun `the live bytes are the histogram's Total line, not the sum of the classes it shows`() {
        val histogram = """
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:          1709         335376  java.lang.Class (java.base@21.0.8)
               2:          4990         309880  [B (java.base@21.0.8)
            Total         28204        1829552
        """.trimIndent()

        assertEquals(1_829_552, ClassHistogram.totalBytes(histogram))
    }

    @Test
    fun `a histogram without its Total line is an error, not zero bytes`() {
        assertThrows<IllegalStateException> { ClassHistogram.totalBytes("num #instances #bytes class name\n1: 2 32 java.lang.Object\n") }
    }

    @Test
    fun `this JVM's live heap is measured, and it holds an array the test keeps`() {
        val kept = ByteArray(8 shl 20)
        val bytes = ClassHistogram.liveBytes()
        assertEquals(8 shl 20, kept.size)
        kotlin.test.assertTrue(bytes > kept.size, "live heap $bytes B with an 8 MiB array live")
    }
}
