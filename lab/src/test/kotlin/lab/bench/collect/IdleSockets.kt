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
 * socket costs the server. With a [gapMs], they open one at a time, that far apart; without,
 * all at once.
 */
class IdleSockets(baseUrl: String, count: Int, gapMs: Long = 0) : AutoCloseable {
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
    private val sockets: List<WebSocket>

    init {
        val uri = URI("ws://${URI(baseUrl).authority}/ws")
        val open = { http.newWebSocketBuilder().buildAsync(uri, object : WebSocket.Listener {}) }
        sockets = if (gapMs > 0) {
            (1..count).map { open().get(10, TimeUnit.SECONDS).also { Thread.sleep(gapMs) } }
        } else {
            val opening = (1..count).map { open() }
            CompletableFuture.allOf(*opening.toTypedArray()).get(60, TimeUnit.SECONDS)
            opening.map { it.join() }
        }
    }

    /** Drops every connection at once; the server sees each socket end. */
    override fun close() {
        sockets.forEach { it.abort() }
        http.close()
    }
}
