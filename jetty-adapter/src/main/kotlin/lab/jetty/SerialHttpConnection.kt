package lab.jetty

import org.eclipse.jetty.io.EndPoint
import org.eclipse.jetty.server.Connector
import org.eclipse.jetty.server.HttpConfiguration
import org.eclipse.jetty.server.internal.HttpConnection
import java.util.concurrent.locks.ReentrantLock
import kotlin.concurrent.withLock

/**
 * An HTTP/1.1 connection that reads and parses on one thread at a time, as Jetty's own
 * connection assumes and, after a bad request, does not ensure (12.1.12 and 12.1.14; 12.0.40
 * never showed it).
 *
 * When the parser refuses a request (a 64 KB header, a line that is not one), the thread in
 * [onFillable] hands the error answer to another thread and goes on, to give the request
 * buffer back to the pool. The error answer completes at once, and its completion starts
 * [onFillable] on a third thread, because the first has not yet marked the connection as
 * handling a request. Both then use the same pooled buffer: one returns it while the other
 * still reads the socket into it (or both return it). The next connection to take that buffer
 * parses the bad client's bytes: a well-formed request elsewhere got 431, 400, a closed
 * connection or no answer, 3 to 63 times in 3,000 rounds of `BadNeighbourTest`'s pattern on a
 * plain Jetty server, and once in a while in the abuse suite (the `/health` after the 64 KB case).
 *
 * The lock makes the second thread wait for the first to leave. It is uncontended on every
 * healthy request (Jetty starts a connection's next fill only once the last has left), so the
 * three Jetty servers pay one uncontended lock per read, alike; Ktor's Netty reads each
 * connection on its one event loop and needs none. Subclasses add their work to each fill in
 * [afterFill], under the same lock.
 */
internal open class SerialHttpConnection(http: HttpConfiguration, connector: Connector, endPoint: EndPoint) :
    HttpConnection(http, connector, endPoint) {
    // Reentrant: an answer completed inline may start the next fill on the thread already here.
    private val filling = ReentrantLock()

    final override fun onFillable() = filling.withLock {
        super.onFillable()
        afterFill()
    }

    /** Runs after each of Jetty's fills, on the filling thread, before another may start. */
    protected open fun afterFill() {}
}
