package lab.jetty

import lab.handlers.DownstreamPaths
import lab.handlers.Handlers
import lab.handlers.Reply
import okhttp3.Call
import okhttp3.OkHttpClient
import okhttp3.Request
import java.io.IOException
import java.util.concurrent.Callable
import java.util.concurrent.ExecutionException
import java.util.concurrent.Future
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * `/dashboard`'s two downstream calls in blocking style: each runs OkHttp's synchronous
 * `execute()` on a thread of the server's model, and the request's thread blocks until both
 * are back. Cancellation is wired by hand, which is the boilerplate the coroutine server
 * gets from structured concurrency: the waiting thread checks every [CLIENT_CHECK_MS] whether
 * the client has left, and if so cancels both calls; OkHttp then closes both connections to the stub.
 */
internal class BlockingDownstream(private val client: OkHttpClient, private val baseUrl: String, private val model: ThreadModel) {
    /**
     * Makes both calls and combines their answers; or, once [clientGone] says so, cancels
     * both and returns null, as there is no one left to answer.
     */
    fun dashboard(userId: String, clientGone: () -> Boolean): Reply? {
        val calls = listOf(DownstreamPaths.profile(userId), DownstreamPaths.metrics(userId))
            .map { client.newCall(Request.Builder().url(baseUrl + it).build()) }
        val futures = mutableListOf<Future<String>>()
        try {
            calls.forEach { call -> futures += model.executor.submit(Callable { fetch(call) }) }
            val (profile, metrics) = futures.map { it.awaitUnless(clientGone) ?: return null }
            return Handlers.dashboard(userId, profile, metrics)
        } catch (e: RejectedExecutionException) {
            return Handlers.overloaded()
        } catch (e: ExecutionException) {
            return Handlers.downstreamFailed(baseUrl, (e.cause as? DownstreamStatusException)?.status)
        } finally {
            // Whatever ended the wait, no call outlives it.
            calls.forEach(Call::cancel)
        }
    }

    private fun <T> Future<T>.awaitUnless(clientGone: () -> Boolean): T? {
        while (true) {
            try {
                return get(CLIENT_CHECK_MS, TimeUnit.MILLISECONDS)
            } catch (e: TimeoutException) {
                if (clientGone()) return null
            }
        }
    }

    private fun fetch(call: Call): String = call.execute().use { response ->
        if (response.code != 200) throw DownstreamStatusException(response.code)
        response.body.string()
    }

    private companion object {
        /** How often a waiting dashboard looks for a departed client: often enough that a call rarely outlives it by much. */
        const val CLIENT_CHECK_MS = 25L
    }

    private class DownstreamStatusException(val status: Int) : IOException("downstream answered $status")
}
