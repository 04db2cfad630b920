package lab.handlers

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

class OpenSocketTest {
    private val counters = LiveCounters(SocketBallast(1024, SocketBallast.Kind.HEAP))

    @Test
    fun `a socket counts as open from openSocket until it closes`() {
        val first = counters.openSocket()
        val second = counters.openSocket()
        assertEquals(2, counters.snapshot("e", "coroutine").openSockets)
        first.close()
        assertEquals(1, counters.snapshot("e", "coroutine").openSockets)
        second.close()
        assertEquals(0, counters.snapshot("e", "coroutine").openSockets)
    }

    @Test
    fun `closing a socket twice uncounts it once`() {
        val kept = counters.openSocket()
        counters.openSocket().apply {
            close()
            close()
        }
        assertEquals(1, counters.openSockets.get())
        kept.close()
    }
}
