package lab.handlers

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.nio.ByteBuffer
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class SocketBallastTest {
    @Test
    fun `no ballast, the default, allocates nothing`() {
        assertNull(SocketBallast.NONE.allocate())
        assertNull(SocketBallast(0, SocketBallast.Kind.DIRECT).allocate())
    }

    @Test
    fun `a heap ballast is one byte array of exactly K bytes`() {
        val ballast = SocketBallast(65_536, SocketBallast.Kind.HEAP).allocate()
        assertEquals(65_536, (ballast as ByteArray).size)
    }

    @Test
    fun `a direct ballast is K bytes off the heap with every page written`() {
        val buffer = SocketBallast(3 * 4096 + 100, SocketBallast.Kind.DIRECT).allocate() as ByteBuffer
        assertTrue(buffer.isDirect)
        assertEquals(3 * 4096 + 100, buffer.capacity())
        for (page in 0..3) assertEquals(1, buffer.get(page * 4096).toInt(), "page $page")
    }

    @Test
    fun `a negative ballast is refused`() {
        assertThrows<IllegalArgumentException> { SocketBallast(-1) }
    }
}
