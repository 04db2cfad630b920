package lab.jetty

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import lab.handlers.LiveCounters
import org.eclipse.jetty.websocket.api.Callback
import org.eclipse.jetty.websocket.api.Session
import kotlin.coroutines.cancellation.CancellationException

/**
 * One WebSocket, served by one coroutine of [scope] for its whole life: the mirror of
 * [BlockingEchoSocket] on the [CoroutineModel]. Jetty's callbacks feed the socket's [inbox]
 * channel, and the coroutine suspends in [Channel.receive] until the next frame, holding no
 * thread; its live state is the coroutine's continuation on the heap. The same explicit
 * [Session.demand] keeps at most one frame in flight ([lab.handlers.Limits.WEB_SOCKET_FRAMES_QUEUED]).
 */
internal class SuspendingEchoSocket(private val scope: CoroutineScope, private val counters: LiveCounters) : HandOffSocket() {
    // Unlimited, so Jetty's callbacks never wait; demand keeps it at one frame and a close.
    private val inbox = Channel<Inbound>(Channel.UNLIMITED)

    override fun onWebSocketOpen(session: Session) {
        // ATOMIC: the task runs even if the scope is cancelled meanwhile, so the socket is always counted and released.
        scope.launch(start = CoroutineStart.ATOMIC) { serve(session) }
    }

    private suspend fun serve(session: Session) {
        counters.openSocket().use {
            try {
                while (true) {
                    session.demand()
                    when (val next = inbox.receive()) {
                        is Inbound.Text -> Callback.Completable.with { session.sendText(next.text, it) }.await()
                        is Inbound.Binary -> Callback.Completable.with { session.sendBinary(next.bytes, it) }.await()
                        Inbound.Closed -> return
                    }
                }
            } catch (e: CancellationException) {
                throw e // the server is stopping
            } catch (e: Exception) {
                // A send failed because the peer went away: the socket's task is over.
            }
        }
    }

    override fun deliver(next: Inbound) {
        inbox.trySend(next)
    }
}
