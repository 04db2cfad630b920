package lab.jetty

import lab.handlers.DownstreamPaths
import lab.handlers.Handlers
import lab.handlers.Limits
import lab.handlers.Reply
import org.eclipse.jetty.client.ContentResponse
import org.eclipse.jetty.client.HttpClient
import org.eclipse.jetty.client.Request
import org.eclipse.jetty.util.thread.QueuedThreadPool
import java.io.IOException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * The one downstream client of every Jetty server: Jetty's own `HttpClient`, so the three
 * models call the stub through the same library, connection pool and parser. The thread
 * models use its blocking form (`Request.send()`, which holds the calling thread until the
 * answer is in); the coroutine model its asynchronous form, which holds no thread while a call
 * is in flight. (OkHttp could not serve both: its `enqueue` runs each call on a thread of its
 * dispatcher, so an "asynchronous" call would still hold a thread.)
 */
internal class DownstreamClient(val baseUrl: String, private val timeoutMs: Long) : AutoCloseable {
    private val client = HttpClient().apply {
        // Its selector and callbacks run here: a few engine threads, the same on every model.
        executor = QueuedThreadPool(CLIENT_THREADS, 2).apply { name = "jetty-client" }
        // Jetty's defaults (64 connections to one host, 1,024 calls queued behind them) would
        // queue calls, then fail them; every server's client holds the same declared bound instead.
        maxConnectionsPerDestination = Limits.DOWNSTREAM_CONNECTIONS_MAX
        maxRequestsQueuedPerDestination = Limits.DOWNSTREAM_CONNECTIONS_MAX
        // Its 5 s default would end a call whose connect waits on a busy stub: the call's own bound is the only one.
        connectTimeout = timeoutMs
        // Its 30 s idle timeout would also end a call in flight (with a TimeoutException): the
        // contract's downstream timeout, set on each call, is the only bound, as on Ktor's client.
        idleTimeout = 0
        start()
    }

    /**
     * `/dashboard`'s two calls for [userId], not yet sent: the profile, then the metrics. Each
     * is bounded, from sending to its last byte, by the contract's downstream timeout.
     */
    fun dashboardCalls(userId: String): List<Request> =
        DownstreamPaths.dashboard(userId)
            .map { client.newRequest(baseUrl + it).timeout(timeoutMs, TimeUnit.MILLISECONDS) }

    /** The body of a downstream answer; any status but 200 is the downstream's failure. */
    fun body(response: ContentResponse): String {
        if (response.status != 200) throw DownstreamStatusException(response.status)
        return response.contentAsString
    }

    /**
     * The answer when a call failed: a timeout (the client reports it as a [TimeoutException],
     * bare or wrapped, depending on the form of the call), the status the downstream gave, or
     * no complete answer.
     */
    fun failed(cause: Throwable?): Reply = when {
        generateSequence(cause) { it.cause }.any { it is TimeoutException } -> Handlers.downstreamTimedOut(baseUrl, timeoutMs)
        else -> Handlers.downstreamFailed(baseUrl, (cause as? DownstreamStatusException)?.status)
    }

    override fun close() = client.stop()

    private class DownstreamStatusException(val status: Int) : IOException("downstream answered $status")

    private companion object {
        const val CLIENT_THREADS = 8
    }
}
