package lab.jetty

import org.eclipse.jetty.websocket.api.Callback
import org.eclipse.jetty.websocket.api.Session
import java.nio.ByteBuffer

/**
 * Jetty's WebSocket callbacks, which only [deliver] each frame to the socket's own task: a
 * thread blocked on a queue ([BlockingEchoSocket]) or a coroutine suspended on a channel
 * ([SuspendingEchoSocket]). Pings are not seen here: Jetty answers them itself (we do not
 * override `onWebSocketPing`), as Ktor does on the coroutine server.
 */
internal abstract class HandOffSocket : Session.Listener {
    /** Hands [next] to the socket's task; never waits, as it runs on Jetty's threads. */
    protected abstract fun deliver(next: Inbound)

    override fun onWebSocketText(message: String) = deliver(Inbound.Text(message))

    override fun onWebSocketBinary(payload: ByteBuffer, callback: Callback) {
        val copy = Inbound.binaryCopy(payload)
        callback.succeed()
        deliver(copy)
    }

    override fun onWebSocketClose(statusCode: Int, reason: String?) = deliver(Inbound.Closed)

    override fun onWebSocketError(cause: Throwable) = deliver(Inbound.Closed)
}
