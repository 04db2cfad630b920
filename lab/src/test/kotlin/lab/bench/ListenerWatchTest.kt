package lab.bench

import kotlin.test.Test
import kotlin.test.assertEquals

class ListenerWatchTest {
    private fun listener(row: String) = ListenerWatch.parse(row).single()

    @Test
    fun `a row names its owner, protocol and port`() {
        assertEquals(
            ListenerWatch.Listener(4711, "tcp", "::ffff:127.0.0.1", 8080),
            listener("""tcp   LISTEN 0      4096   [::ffff:127.0.0.1]:8080        *:*    users:(("java",pid=4711,fd=9))"""),
        )
    }

    @Test
    fun `only an address in 127 dot 0 dot 0 dot 0 slash 8, or the IPv6 loopback, counts as loopback`() {
        val loopback = listOf("127.0.0.1:5000", "127.0.0.3:5000", "[::1]:5000", "[::ffff:127.0.0.1]:5000", "127.0.0.53%lo:53")
        val everywhere = listOf("*:45719", "0.0.0.0:5000", "[::]:5000", "10.0.0.2:5000")
        for (local in loopback + everywhere) {
            val seen = listener("""tcp   LISTEN 0      50     $local      *:*    users:(("java",pid=1,fd=5))""")
            assertEquals(local in loopback, seen.onLoopback, local)
        }
    }

    @Test
    fun `a socket two processes share is each one's`() {
        val row = """udp   UNCONN 0      0      0.0.0.0:68      0.0.0.0:*    users:(("a",pid=10,fd=3),("b",pid=11,fd=3))"""
        assertEquals(listOf(10L, 11L), ListenerWatch.parse(row).map { it.pid })
    }
}
