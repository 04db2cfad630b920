package lab.jetty

import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.withTimeoutOrNull
import org.eclipse.jetty.io.SocketChannelEndPoint
import org.eclipse.jetty.server.Request
import java.io.IOException
import java.nio.ByteBuffer

/**
 * Tells whether the client of a request has closed its connection.
 *
 * Jetty (12.1, HTTP/1.1) stops reading a connection while its request is being handled, so
 * it only learns that the client left when it writes the response; `Request.addFailureListener`
 * never fires for a GET whose client hangs up mid-handling (seen in this lab's cancellation
 * test). Netty, under the coroutine server, keeps reading and sees it at once. To give the
 * Jetty servers the same behaviour, [clientGone] reads the socket itself, without blocking:
 * end-of-stream means the client is gone. Jetty is not reading this connection meanwhile,
 * so the two never race.
 *
 * A client that pipelines a second request behind this one would have a byte of it
 * consumed here; the watch then closes the connection after the response ([sawPipelinedBytes]),
 * which RFC 9112 tells pipelining clients to expect and to retry after. k6 and browsers do not pipeline.
 */
internal class ClientDisconnectWatch(request: Request) {
    private val channel = (request.connectionMetaData.connection.endPoint as? SocketChannelEndPoint)?.channel
    private val probe = ByteBuffer.allocate(1)

    var sawPipelinedBytes = false
        private set

    fun clientGone(): Boolean {
        if (channel == null || sawPipelinedBytes) return false
        probe.clear()
        val read = try {
            channel.read(probe)
        } catch (e: IOException) {
            -1
        }
        if (read > 0) sawPipelinedBytes = true
        return read < 0
    }

    /**
     * Runs [work] to its end, unless the client leaves first: then cancels it and returns null.
     * The suspending twin of the thread models' wait, checking as often.
     */
    suspend fun <T : Any> unlessClientLeaves(work: suspend () -> T): T? = coroutineScope {
        val answer = async { work() }
        while (true) {
            // The timeout cancels only this wait, never the work.
            withTimeoutOrNull(CHECK_EVERY_MS) { answer.await() }?.let { return@coroutineScope it }
            if (clientGone()) break
        }
        answer.cancel()
        null
    }

    companion object {
        /** How often a waiting `/dashboard` looks for a departed client: often enough that a call rarely outlives it by much. */
        const val CHECK_EVERY_MS = 25L
    }
}
