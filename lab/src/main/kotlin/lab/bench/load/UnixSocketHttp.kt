package lab.bench.load

import org.eclipse.jetty.client.HttpClient
import org.eclipse.jetty.client.StringRequestContent
import org.eclipse.jetty.http.HttpHeader
import org.eclipse.jetty.http.HttpHeaderValue
import org.eclipse.jetty.io.Transport
import org.eclipse.jetty.util.thread.QueuedThreadPool
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler
import java.io.IOException
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * HTTP/1.1 over a Unix socket, through Jetty's client. A k6 on a load generator is reached through a socket file that SSH
 * forwards to its API, so the harness opens no local port for it (a port chosen free and bound later by SSH could be taken in
 * between); the JDK's HTTP client speaks only TCP.
 */
object UnixSocketHttp {
    data class Answer(val status: Int, val body: String)

    // One client for the harness's life; its threads are daemons, so it never holds the JVM open at the end of a run.
    private val client: HttpClient by lazy {
        HttpClient().apply {
            executor = QueuedThreadPool().apply {
                name = "unix-http"
                isDaemon = true
            }
            scheduler = ScheduledExecutorScheduler("unix-http-scheduler", true)
            start()
        }
    }

    /** Sends one request to the server behind [socket]; its whole answer within [timeout], or an [IOException]. */
    fun exchange(socket: Path, method: String, target: String, body: String? = null, timeout: Duration): Answer {
        val request = client.newRequest("http://localhost$target")
            .transport(Transport.TCPUnix(socket))
            .method(method)
            .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
            // One connection a request: the socket file is bound again to a new SSH forward between a segment's phases, and a
            // pooled connection to the old forward would fail the next request, which Jetty does not retry.
            .headers { it.put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE) }
        if (body != null) request.body(StringRequestContent("application/json", body))
        val response = try {
            request.send()
        } catch (_: TimeoutException) {
            throw IOException("$method $target on $socket: no whole answer within ${timeout.toMillis()} ms")
        } catch (e: ExecutionException) {
            throw IOException("$method $target on $socket: ${e.cause?.message ?: e.message}", e.cause ?: e)
        }
        return Answer(response.status, response.contentAsString)
    }
}
