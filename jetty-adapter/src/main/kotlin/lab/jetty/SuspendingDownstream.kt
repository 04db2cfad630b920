package lab.jetty

import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.future.await
import lab.handlers.Handlers
import lab.handlers.Reply
import org.eclipse.jetty.client.CompletableResponseListener
import org.eclipse.jetty.client.ContentResponse
import org.eclipse.jetty.client.Request
import kotlin.coroutines.cancellation.CancellationException

/**
 * `/dashboard`'s two downstream calls as suspending code: both are children of the request's
 * coroutine, in flight together through the client's asynchronous form, with no thread held
 * while they wait. When the request's coroutine is cancelled (its client left), both calls
 * are aborted with it, which closes their connections to the stub.
 */
internal class SuspendingDownstream(private val downstream: DownstreamClient) {
    suspend fun dashboard(userId: String): Reply = try {
        val (profile, metrics) = coroutineScope {
            val answers = downstream.dashboardCalls(userId).map { call -> async { downstream.body(call.sendSuspending()) } }
            answers[0].await() to answers[1].await()
        }
        Handlers.dashboard(userId, profile, metrics)
    } catch (e: CancellationException) {
        throw e
    } catch (e: Exception) {
        downstream.failed(e)
    }

    // A cancelled await cancels the future, and CompletableResponseListener then aborts the request, closing its connection.
    private suspend fun Request.sendSuspending(): ContentResponse = CompletableResponseListener(this).send().await()
}
