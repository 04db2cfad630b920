package lab.jetty

import lab.handlers.RequestHeadTimeout
import lab.support.EngineChanges
import org.eclipse.jetty.http.ComplianceViolation
import org.eclipse.jetty.http.HttpCompliance
import org.eclipse.jetty.http.HttpException
import org.eclipse.jetty.http.HttpStatus
import org.eclipse.jetty.io.Connection
import org.eclipse.jetty.io.EndPoint
import org.eclipse.jetty.server.Connector
import org.eclipse.jetty.server.HttpConfiguration
import org.eclipse.jetty.server.HttpConnectionFactory
import org.eclipse.jetty.util.Callback
import org.eclipse.jetty.util.thread.Scheduler
import java.nio.ByteBuffer
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/**
 * HTTP/1.1 connections that hold every request's head to [lab.handlers.Limits.requestHeadTimeoutMs],
 * which Jetty has no bound for: its idle timeout restarts with every byte (and is off here).
 * They read on one thread at a time ([SerialHttpConnection]), which Jetty 12.1 fails to ensure after a bad request.
 *
 * Jetty's parser tells its connection when a message begins and when its head is complete; the
 * clock runs from the first byte of the one to the other. As on the Ktor server, a timer is set
 * only for a head still arriving once a read has been parsed: most heads arrive whole, and cost
 * nothing. Jetty parses on its own threads, never the model's, so a head that trickles holds no
 * request thread on any Jetty server, the platform one included: what the clock bounds is the
 * connection and its buffer. Jetty parses a connection's next request only once the last is
 * answered, so the 408 never cuts into an answer. `HttpConnection` is in Jetty's internal package
 * (12.1.12), and its request handler is the one place these two events can be seen; it is also
 * where a request line without a version is given the Ktor server's answer (400, not 505).
 */
internal class HeadTimedConnectionFactory(
    http: HttpConfiguration,
    private val timeoutMs: Long,
    private val changes: EngineChanges,
) : HttpConnectionFactory(http) {
    private val clocked = changes.on("request-head-clock")
    private val versionLessLine400 = changes.on("version-less-line-400")
    private val serialFills = changes.on("fill-lock")

    private val answer = RequestHeadTimeout.answer(timeoutMs)

    override fun newConnection(connector: Connector, endPoint: EndPoint): Connection {
        val connection = HeadTimedConnection(httpConfiguration, connector, endPoint)
        connection.transferEncodingChunkMaxLength = transferEncodingChunkMaxLength
        return configure(connection, connector, endPoint)
    }

    private inner class HeadTimedConnection(http: HttpConfiguration, connector: Connector, endPoint: EndPoint) :
        SerialHttpConnection(http, connector, endPoint, serial = serialFills) {
        private val heads = AtomicLong()

        /** The number of the head arriving; 0 while none is, [TIMED_OUT] once one has been answered 408. */
        private val arriving = AtomicLong()

        @Volatile
        private var headBeganNs = 0L

        /** The head the [expiry] timer is for. */
        private val timed = AtomicLong()

        @Volatile
        private var expiry: Scheduler.Task? = null

        // Called from HttpConnection's constructor, before the fields above exist; the handler uses them only once bytes come.
        override fun newRequestHandler(): RequestHandler = HeadEvents()

        override fun afterFill() {
            if (!clocked) return
            val head = arriving.get()
            if (head <= 0L) return
            if (parser.isStart) {
                // Only blank lines so far, which the parser skips ahead of a request line: the clock starts at the next bytes.
                arriving.compareAndSet(head, 0)
            } else if (timed.getAndSet(head) != head) {
                val leftMs = timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - headBeganNs)
                expiry = connector.scheduler.schedule({ expire(head) }, leftMs.coerceAtLeast(0), TimeUnit.MILLISECONDS)
            }
        }

        override fun onClose(cause: Throwable?) {
            expiry?.cancel()
            super.onClose(cause)
        }

        private fun expire(head: Long) {
            // Lost to the head's completion if that came first.
            if (!arriving.compareAndSet(head, TIMED_OUT)) return
            try {
                endPoint.write(Callback.from({ endPoint.close() }, { endPoint.close() }), ByteBuffer.wrap(answer))
            } catch (e: IllegalStateException) {
                // WritePendingException: the head completed as the bound passed, and its answer is going out; the close ends both.
                endPoint.close()
            }
        }

        private inner class HeadEvents : RequestHandler() {
            override fun messageBegin() {
                super.messageBegin()
                // Jetty also begins a message on no bytes at all (it parses an empty buffer once an answer is out), and again
                // after each blank line ahead of a request line: the clock starts at the first byte, once.
                if (isRequestBufferEmpty || arriving.get() != 0L) return
                headBeganNs = System.nanoTime()
                arriving.set(heads.incrementAndGet())
            }

            override fun headerComplete(): Boolean {
                headEnds()
                return super.headerComplete()
            }

            /**
             * A request line without a version (`GET /health`, HTTP/0.9's) is one HTTP/1.1's grammar does not
             * allow, and RFC 9112 3 answers an invalid request line with 400, as the Ktor server does; Jetty's
             * parser answers 505 ("HTTP/0.9 not supported"), with no setting to change it. It reports the
             * violation here first, and what is thrown here becomes the bad message's answer.
             */
            override fun onViolation(event: ComplianceViolation.Event) {
                super.onViolation(event)
                if (versionLessLine400 && event.violation() == HttpCompliance.Violation.HTTP_0_9 && !event.allowed()) {
                    throw HttpException.RuntimeException(HttpStatus.BAD_REQUEST_400, "a request line needs a version: HTTP/1.1")
                }
            }

            override fun badMessage(failure: HttpException) {
                headEnds()
                super.badMessage(failure)
            }

            override fun earlyEOF() {
                headEnds()
                super.earlyEOF()
            }

            private fun headEnds() {
                // A head that completes as its 408 goes out is not served: the connection is closing.
                if (arriving.getAndSet(0) == TIMED_OUT) endPoint.close()
                expiry?.cancel()
            }
        }
    }
}

private const val TIMED_OUT = -1L
