package lab.conformance

import lab.verify.Answer
import java.io.ByteArrayOutputStream
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.WebSocket
import java.nio.ByteBuffer
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/** The JDK's own HTTP and WebSocket client: a real client over loopback, and not one the servers use. */
object LabClients {
    val http: HttpClient = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build()

    fun send(base: URI, target: String, method: String = "GET"): Answer = Answer.of(http, base, target, method)

    fun openWebSocket(base: URI): SocketProbe = openWebSocketAsync(base).get(30, TimeUnit.SECONDS)

    fun openWebSocketAsync(base: URI): CompletableFuture<SocketProbe> {
        val probe = SocketProbe()
        val uri = URI("ws://${base.host}:${base.port}/ws")
        return http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10)).buildAsync(uri, probe)
            .thenApply { probe }
    }
}

/** A WebSocket client that records everything it receives, one whole message at a time. */
class SocketProbe : WebSocket.Listener {
    sealed interface Event {
        data class Text(val text: String) : Event

        class Binary(val bytes: ByteArray) : Event

        class Pong(val bytes: ByteArray) : Event

        data class Closed(val code: Int, val reason: String) : Event
    }

    @Volatile
    lateinit var socket: WebSocket
    val events = LinkedBlockingQueue<Event>()
    private val text = StringBuilder()
    private val binary = ByteArrayOutputStream()

    fun next(timeoutSeconds: Long = 10): Event = events.poll(timeoutSeconds, TimeUnit.SECONDS)
        ?: error("no WebSocket event within $timeoutSeconds s")

    override fun onOpen(webSocket: WebSocket) {
        socket = webSocket
        webSocket.request(1)
    }

    override fun onText(webSocket: WebSocket, data: CharSequence, last: Boolean): CompletionStage<*>? {
        text.append(data)
        if (last) events.put(Event.Text(text.toString())).also { text.clear() }
        webSocket.request(1)
        return null
    }

    override fun onBinary(webSocket: WebSocket, data: ByteBuffer, last: Boolean): CompletionStage<*>? {
        binary.write(ByteArray(data.remaining()).also { data.get(it) })
        if (last) events.put(Event.Binary(binary.toByteArray())).also { binary.reset() }
        webSocket.request(1)
        return null
    }

    override fun onPong(webSocket: WebSocket, message: ByteBuffer): CompletionStage<*>? {
        events.put(Event.Pong(ByteArray(message.remaining()).also { message.get(it) }))
        webSocket.request(1)
        return null
    }

    override fun onClose(webSocket: WebSocket, statusCode: Int, reason: String): CompletionStage<*>? {
        events.put(Event.Closed(statusCode, reason))
        return CompletableFuture.completedFuture(null)
    }

    override fun onError(webSocket: WebSocket, error: Throwable) {
        events.put(Event.Closed(-1, error.toString()))
    }
}
