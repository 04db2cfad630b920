package lab.jetty

import org.eclipse.jetty.io.EndPoint
import org.eclipse.jetty.server.Connector
import org.eclipse.jetty.server.HttpConfiguration
import org.eclipse.jetty.server.internal.HttpConnection
import java.util.concurrent.locks.ReentrantLock
import kotlin.concurrent.withLock

/**
 * An HTTP/1.1 connection whose [onFillable], where Jetty reads a connection's socket and parses
 * its requests, runs on one thread at a time, which Jetty 12.1 (12.1.12 and 12.1.14; 12.0.40
 * never showed it) does not ensure after a bad request.
 *
 * When the parser refuses a request (a 64 KB header, a line that is not one), the thread in
 * [onFillable] hands the error answer to another thread and goes on, to give the request
 * buffer back to the pool. The error answer completes at once, and its completion starts
 * [onFillable] on a third thread: a refused request never marks the connection as handling
 * one, so nothing tells the completion that a thread is still in there. Both then use the same
 * pooled buffer: one returns it while the other still reads the socket into it (or both return
 * it). The next connection to take that buffer parses the bad client's bytes: a well-formed
 * request elsewhere got 431, 400, a closed connection or no answer, 3 to 63 times in 3,000
 * rounds of `BadNeighbourTest`'s pattern on a plain Jetty server, and once in a while in the
 * abuse suite (the `/health` after the 64 KB case).
 *
 * The lock makes the later thread wait for the earlier to leave. On a healthy connection it is
 * rarely contended: Jetty may start the next [onFillable] once a request is handed to the model,
 * while the thread that handed it is still on its way out, and the wait is that short. The
 * three Jetty servers pay the same lock on every read; Ktor's Netty reads each connection on
 * its one event loop and needs none. The wait is on one of Jetty's own threads, never the
 * selector's: the WebSocket container makes the server's invocation type blocking, so Jetty
 * runs every fill on its pool. Reading a request's content outside [onFillable] is not under
 * the lock; the lab's requests have none past their head. Subclasses add their work to each
 * fill in [afterFill], under the same lock.
 */
internal open class SerialHttpConnection(
    http: HttpConfiguration,
    connector: Connector,
    endPoint: EndPoint,
    /** Whether fills take the lock: false runs Jetty as shipped (`--as-shipped fill-lock`), to measure what the lock costs. */
    private val serial: Boolean = true,
) : HttpConnection(http, connector, endPoint) {
    // Reentrant: where the pool refuses to dispatch the next fill, Jetty runs it on the thread already here.
    private val filling = ReentrantLock()

    final override fun onFillable() {
        if (!serial) return fillAndAfter()
        filling.withLock { fillAndAfter() }
    }

    private fun fillAndAfter() {
        super.onFillable()
        afterFill()
    }

    /** Runs after each of Jetty's fills, on the filling thread, before another may start. */
    protected open fun afterFill() {}
}
