package lab.jetty

import lab.handlers.LiveCounters
import org.eclipse.jetty.websocket.api.Callback
import org.eclipse.jetty.websocket.api.Session
import org.eclipse.jetty.websocket.api.StatusCode
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.RejectedExecutionException

/**
 * One WebSocket, served by one thread of the [ThreadModel] for its whole life.
 *
 * Jetty's WebSocket API is callback-based: Jetty calls us on its own threads when a frame
 * arrives, and no thread of ours needs to exist in between. That would hide the very cost
 * the lab measures. So the callbacks only hand each frame to the socket's own task, which
 * blocks in [LinkedBlockingQueue.take] until the next one: on jetty-virtual-server that parks a
 * virtual thread (its stack moves to the heap), on jetty-platform-server it holds an OS thread.
 * Explicit [Session.demand] keeps at most one frame in flight ([lab.handlers.Limits.WEB_SOCKET_FRAMES_QUEUED]), so the queue stays tiny.
 * [SuspendingEchoSocket] is its mirror on coroutines.
 */
internal class BlockingEchoSocket(private val model: ThreadModel, private val counters: LiveCounters) : HandOffSocket() {
    private val inbox = LinkedBlockingQueue<Inbound>()

    override fun onWebSocketOpen(session: Session) {
        try {
            model.executor.execute { serve(session) }
        } catch (e: RejectedExecutionException) {
            session.close(StatusCode.TRY_AGAIN_LATER, "server thread pool exhausted", Callback.NOOP)
        }
    }

    private fun serve(session: Session) {
        counters.openSocket().use {
            try {
                while (true) {
                    session.demand()
                    when (val next = inbox.take()) {
                        is Inbound.Text -> Callback.Completable.with { session.sendText(next.text, it) }.get()
                        is Inbound.Binary -> Callback.Completable.with { session.sendBinary(next.bytes, it) }.get()
                        Inbound.Closed -> return
                    }
                }
            } catch (e: Exception) {
                // A send failed because the peer went away: the socket's task is over.
            }
        }
    }

    override fun deliver(next: Inbound) {
        inbox.put(next)
    }
}
