package lab.jetty

import lab.handlers.Handlers
import lab.handlers.Reply
import java.util.concurrent.Callable
import java.util.concurrent.CancellationException
import java.util.concurrent.ExecutionException
import java.util.concurrent.RejectedExecutionException

/**
 * `/dashboard`'s two downstream calls in blocking style: each runs the client's blocking
 * `send()` on a thread of the server's model, and the request's thread blocks until both are
 * back. Cancellation is wired by hand, which is the boilerplate coroutines get from structured
 * concurrency: if the [ClientDisconnectWatch] sees the client leave, it aborts both calls, which
 * ends the thread's wait and closes both connections to the stub.
 */
internal class BlockingDownstream(private val downstream: DownstreamClient, private val model: ThreadModel) {
    /**
     * Makes both calls and combines their answers; or, once [watch] sees the client leave, aborts
     * both and returns null, as there is no one left to answer.
     */
    fun dashboard(userId: String, watch: ClientDisconnectWatch): Reply? {
        val calls = downstream.dashboardCalls(userId)
        try {
            val (profile, metrics) = watch.unlessClientLeaves(stopWaiting = { calls.forEach { it.abort(ClientLeft()) } }) {
                calls.map { call -> model.executor.submit(Callable { downstream.body(call.send()) }) }.map { it.get() }
            } ?: return null
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

    private class ClientLeft : CancellationException("the client left before its dashboard was ready")
}
