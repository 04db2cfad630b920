package lab.handlers

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

class WebSocketHandshakeTest {
    private val good = mapOf(
        "Upgrade" to "websocket",
        "Connection" to "keep-alive, Upgrade",
        "Sec-WebSocket-Key" to "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version" to "13",
    )

    private fun refusal(
        path: String = "/ws",
        version: String = "HTTP/1.1",
        change: (MutableMap<String, String>) -> Unit = {},
    ): Reply? {
        val headers = good.toMutableMap().also(change).mapKeys { it.key.lowercase() }
        return WebSocketHandshake.refusal(path, version) { headers[it.lowercase()] }
    }

    @Test
    fun `a proper handshake is left to the engine to upgrade`() = assertNull(refusal())

    @Test
    fun `a request that asks for no WebSocket is left to the router`() {
        assertNull(refusal { it.remove("Upgrade") })
        assertNull(refusal("/json"))
    }

    @Test
    fun `a handshake over HTTP 1_0 is a 400`() = assertEquals(400, refusal(version = "HTTP/1.0")?.status)

    @Test
    fun `a handshake without Connection Upgrade is a 400`() = assertEquals(400, refusal { it["Connection"] = "keep-alive" }?.status)

    @Test
    fun `a handshake without a key of 16 bytes is a 400`() {
        assertEquals(400, refusal { it.remove("Sec-WebSocket-Key") }?.status)
        assertEquals(400, refusal { it["Sec-WebSocket-Key"] = "c2hvcnQ=" }?.status)
        assertEquals(400, refusal { it["Sec-WebSocket-Key"] = "not base64!" }?.status)
    }

    @Test
    fun `another version is a 426 naming the protocol and the version spoken`() {
        val reply = refusal { it["Sec-WebSocket-Version"] = "8" }
        assertEquals(426, reply?.status)
        assertEquals(listOf("Upgrade" to "websocket", "Sec-WebSocket-Version" to "13"), reply?.headers)
        assertEquals(426, refusal { it.remove("Sec-WebSocket-Version") }?.status)
    }
}
