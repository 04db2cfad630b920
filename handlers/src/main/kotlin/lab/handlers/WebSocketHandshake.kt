package lab.handlers

import java.util.Base64

/**
 * RFC 6455 4.2.1's checks of an opening handshake on `/ws`, made before any engine upgrades
 * it, so every server refuses a bad one with the same answer. A request that does not ask for
 * a WebSocket at all is not a handshake: the [Router] answers it (426).
 */
object WebSocketHandshake {
    const val VERSION = "13"

    /**
     * The extensions (RFC 6455 9) every server agrees to, whatever a client offers: none.
     * Compression is an engine's feature, not a model's: permessage-deflate keeps zlib's state
     * for each socket (a deflater and an inflater), so a socket that negotiates it measures the
     * engine's compression along with how its task waits. Jetty agreed to it when offered and
     * the Ktor server's raw session applies no extension, so a client asking for it got it from
     * three servers and not the fourth; now it gets it from none. The bench's k6 offers none.
     */
    val extensions: List<String> = emptyList()

    /** The answer to a bad handshake, or null to let the engine upgrade it (or the router answer a plain request). */
    fun refusal(path: String, httpVersion: String, header: (String) -> String?): Reply? {
        if (path != "/ws" || !hasToken(header("Upgrade"), "websocket")) return null
        return when {
            // 4.1: the handshake is an HTTP/1.1 request (Ktor upgraded one over HTTP/1.0; Jetty did not).
            httpVersion != "HTTP/1.1" -> Reply.error(400, "a WebSocket handshake is an HTTP/1.1 request, not $httpVersion")
            !hasToken(header("Connection"), "upgrade") -> Reply.error(400, "a WebSocket handshake needs Connection: Upgrade")
            // 4.4: a version the server does not speak gets 426 and the versions it does.
            header("Sec-WebSocket-Version")?.trim() != VERSION -> Reply.error(
                426,
                "this server speaks WebSocket version $VERSION only; send Sec-WebSocket-Version: $VERSION",
                "Upgrade" to "websocket",
                "Sec-WebSocket-Version" to VERSION,
            )
            !isKey(header("Sec-WebSocket-Key")) ->
                Reply.error(400, "a WebSocket handshake needs Sec-WebSocket-Key: 16 random bytes in base64")
            else -> null
        }
    }

    private fun hasToken(value: String?, token: String): Boolean =
        value != null && value.split(',').any { it.trim().equals(token, ignoreCase = true) }

    private fun isKey(value: String?): Boolean =
        value != null && runCatching { Base64.getDecoder().decode(value.trim()).size == KEY_BYTES }.getOrDefault(false)

    private const val KEY_BYTES = 16
}
