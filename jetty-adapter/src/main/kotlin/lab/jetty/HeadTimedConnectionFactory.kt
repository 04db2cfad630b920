package lab.jetty

import lab.handlers.RequestHeadTimeout
import org.eclipse.jetty.http.HttpException
import org.eclipse.jetty.io.Connection
import org.eclipse.jetty.io.EndPoint
import org.eclipse.jetty.server.Connector
import org.eclipse.jetty.server.HttpConfiguration
import org.eclipse.jetty.server.HttpConnectionFactory
import org.eclipse.jetty.server.internal.HttpConnection
import org.eclipse.jetty.util.Callback
import org.eclipse.jetty.util.thread.Scheduler
import java.nio.ByteBuffer
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/**
 * HTTP/1.1 connections that hold every request's head to [lab.handlers.Limits.requestHeadTimeoutMs],
 * which Jetty has no bound for: its idle timeout restarts with every byte (and is off here).
 *
 * Jetty's parser tells its connection when a message begins and when its head is complete; the
 * clock runs from the first byte of the one to the other. Jetty parses on its own threads, never the model's, so a head that
 * trickles holds no request thread on any Jetty server, the platform one included: what the clock
 * bounds is the connection and its buffer. Jetty parses a connection's next request only once the
 * last is answered, so the 408 never cuts into an answer. `HttpConnection` is in Jetty's internal
 * package (12.1.12), and its request handler is the one place these two events can be seen.
 */
internal class HeadTimedConnectionFactory(http: HttpConfiguration, private val timeoutMs: Long) : HttpConnectionFactory(http) {
    private val answer = RequestHeadTimeout.answer(timeoutMs)

    override fun newConnection(connector: Connector, endPoint: EndPoint): Connection {
        val connection = HeadTimedConnection(httpConfiguration, connector, endPoint)
        connection.transferEncodingChunkMaxLength = transferEncodingChunkMaxLength
        return configure(connection, connector, endPoint)
    }

    private inner class HeadTimedConnection(http: HttpConfiguration, connector: Connector, endPoint: EndPoint) :
        HttpConnection(http, connector, endPoint) {
        // Called from HttpConnection's constructor, before this class's own fields exist: the clock keeps its state itself.
        override fun newRequestHandler(): RequestHandler = HeadClock()

        private inner class HeadClock : RequestHandler() {
            private val heads = AtomicLong()

            /** The number of the head being timed; 0 when none is. */
            private val timed = AtomicLong()

            @Volatile
            private var expiry: Scheduler.Task? = null

            override fun messageBegin() {
                super.messageBegin()
                // Jetty also begins a message on no bytes at all (it parses an empty buffer once an answer is out), and again
                // after each blank line ahead of a request line: the clock starts at the first byte, once.
                if (isRequestBufferEmpty || timed.get() != 0L) return
                val head = heads.incrementAndGet()
                timed.set(head)
                expiry = connector.scheduler.schedule({ expire(head) }, timeoutMs, TimeUnit.MILLISECONDS)
            }

            override fun headerComplete(): Boolean {
                stop()
                return super.headerComplete()
            }

            override fun badMessage(failure: HttpException) {
                stop()
                super.badMessage(failure)
            }

            override fun earlyEOF() {
                stop()
                super.earlyEOF()
            }

            private fun stop() {
                timed.set(0)
                expiry?.cancel()
            }

            private fun expire(head: Long) {
                // Lost to the head's completion, or to a later head's start, if either came first.
                if (!timed.compareAndSet(head, 0)) return
                endPoint.write(Callback.from({ endPoint.close() }, { endPoint.close() }), ByteBuffer.wrap(answer))
            }
        }
    }
}
