package lab.jetty

import lab.handlers.Handlers
import lab.handlers.Reply
import java.util.concurrent.Callable
import java.util.concurrent.CancellationException
import java.util.concurrent.ExecutionException
import java.util.concurrent.Future
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * `/dashboard`'s two downstream calls in blocking style: each runs the client's blocking
 * `send()` on a thread of the server's model, and the request's thread blocks until both are
 * back. Cancellation is wired by hand, which is the boilerplate coroutines get from structured
 * concurrency: the waiting thread checks every [ClientDisconnectWatch.CHECK_EVERY_MS] whether
 * the client has left, and if so aborts both calls, which closes both connections to the stub.
 */
internal class BlockingDownstream(private val downstream: DownstreamClient, private val model: ThreadModel) {
    /**
     * Makes both calls and combines their answers; or, once [clientGone] says so, aborts
     * both and returns null, as there is no one left to answer.
     */
    fun dashboard(userId: String, clientGone: () -> Boolean): Reply? {
        val calls = downstream.dashboardCalls(userId)
        val futures = mutableListOf<Future<String>>()
        try {
            calls.forEach { call -> futures += model.executor.submit(Callable { downstream.body(call.send()) }) }
            val (profile, metrics) = futures.map { it.awaitUnless(clientGone) ?: return null }
            return Handlers.dashboard(userId, profile, metrics)
        } catch (e: RejectedExecutionException) {
            return Handlers.overloaded()
        } catch (e: ExecutionException) {
            return downstream.failed(e.cause)
        } finally {
            // Whatever ended the wait, no call outlives it; aborting a finished call does nothing.
            calls.forEach { it.abort(CancellationException("the dashboard is answered or its client has left")) }
        }
    }

    private fun <T> Future<T>.awaitUnless(clientGone: () -> Boolean): T? {
        while (true) {
            try {
                return get(ClientDisconnectWatch.CHECK_EVERY_MS, TimeUnit.MILLISECONDS)
            } catch (e: TimeoutException) {
                if (clientGone()) return null
            }
        }
    }
}
