package lab.bench.collect

import java.net.URI
import java.net.http.HttpClient
import java.net.http.WebSocket
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

/**
 * [count] WebSockets opened to a server's `/ws` and left idle, from the JDK's own client (not
 * one the servers use), until closed. They send nothing, so each holds only what an open idle
 * socket costs the server.
 */
class IdleSockets(baseUrl: String, count: Int) : AutoCloseable {
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
    private val sockets: List<WebSocket>

    init {
        val uri = URI("ws://${URI(baseUrl).authority}/ws")
        val opening = (1..count).map { http.newWebSocketBuilder().buildAsync(uri, object : WebSocket.Listener {}) }
        CompletableFuture.allOf(*opening.toTypedArray()).get(60, TimeUnit.SECONDS)
        sockets = opening.map { it.join() }
    }

    /** Drops every connection at once; the server sees each socket end. */
    override fun close() {
        sockets.forEach { it.abort() }
        http.close()
    }
}
