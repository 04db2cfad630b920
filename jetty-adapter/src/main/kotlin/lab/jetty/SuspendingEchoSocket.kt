package lab.jetty

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import lab.handlers.LiveCounters
import org.eclipse.jetty.websocket.api.Callback
import org.eclipse.jetty.websocket.api.Session
import java.nio.ByteBuffer

/**
 * One WebSocket, served by one coroutine of [scope] for its whole life: the mirror of
 * [BlockingEchoSocket] on the [CoroutineModel]. Jetty's callbacks feed the socket's [inbox]
 * channel, and the coroutine suspends in [Channel.receive] until the next frame, holding no
 * thread; its live state is the coroutine's continuation on the heap. The same explicit
 * [Session.demand] keeps at most one frame in flight, and pings are Jetty's, as there.
 */
internal class SuspendingEchoSocket(private val scope: CoroutineScope, private val counters: LiveCounters) : Session.Listener {
    // Unlimited, so Jetty's callbacks never wait; demand keeps it at one frame and a close.
    private val inbox = Channel<Inbound>(Channel.UNLIMITED)

    override fun onWebSocketOpen(session: Session) {
        scope.launch { serve(session) }
    }

    private suspend fun serve(session: Session) {
        counters.openSockets.incrementAndGet()
        try {
            while (true) {
                session.demand()
                when (val next = inbox.receive()) {
                    is Inbound.Text -> Callback.Completable.with { session.sendText(next.text, it) }.await()
                    is Inbound.Binary -> Callback.Completable.with { session.sendBinary(next.bytes, it) }.await()
                    Inbound.Closed -> return
                }
            }
        } catch (e: Exception) {
            // A send failed because the peer went away, or the server is stopping: the socket's task is over.
        } finally {
            counters.openSockets.decrementAndGet()
        }
    }

    override fun onWebSocketText(message: String) {
        inbox.trySend(Inbound.Text(message))
    }

    override fun onWebSocketBinary(payload: ByteBuffer, callback: Callback) {
        val copy = Inbound.binaryCopy(payload)
        callback.succeed()
        inbox.trySend(copy)
    }

    override fun onWebSocketClose(statusCode: Int, reason: String?) {
        inbox.trySend(Inbound.Closed)
    }

    override fun onWebSocketError(cause: Throwable) {
        inbox.trySend(Inbound.Closed)
    }
}
