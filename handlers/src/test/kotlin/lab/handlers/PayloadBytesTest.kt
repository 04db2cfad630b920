package lab.handlers

import org.junit.jupiter.api.Test
import java.io.ByteArrayOutputStream
import kotlin.test.assertEquals

class PayloadBytesTest {
    private fun payload(size: Long): ByteArray = ByteArrayOutputStream().also { out ->
        PayloadBytes.forEachChunk(size) { bytes, offset, length -> out.write(bytes, offset, length) }
    }.toByteArray()

    @Test
    fun `chunks add up to exactly the size asked for`() {
        for (size in listOf(0L, 1L, 250L, 251L, PayloadBytes.CHUNK_BYTES.toLong(), 3L * PayloadBytes.CHUNK_BYTES + 17)) {
            assertEquals(size, payload(size).size.toLong(), "size $size")
        }
    }

    @Test
    fun `every byte is its index mod 251, across chunk boundaries`() {
        val bytes = payload(3L * PayloadBytes.CHUNK_BYTES + 17)
        bytes.forEachIndexed { index, byte -> assertEquals(PayloadBytes.byteAt(index.toLong()), byte, "byte $index") }
    }
}
