package lab.ktorcoroutine

import io.ktor.client.HttpClient
import io.ktor.client.plugins.HttpRequestTimeoutException
import io.ktor.client.request.get
import io.ktor.client.statement.bodyAsText
import io.ktor.http.HttpStatusCode
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import lab.handlers.DownstreamPaths
import lab.handlers.Handlers
import lab.handlers.Reply
import kotlin.coroutines.cancellation.CancellationException

/**
 * `/dashboard`'s two downstream calls, made in parallel with structured concurrency: both
 * run as children of the call's coroutine, so when the client goes away and the call is
 * cancelled, both in-flight requests are cancelled with it, and Ktor's CIO engine closes
 * each one's connection to the stub. [client] must be on an engine that does so, which is
 * why [DownstreamHttpClient] builds it on CIO: ktor-client-java leaves the JDK client's exchange
 * running when its coroutine is cancelled (the stub counted 0 of 2 calls cancelled), and runs
 * only as an arm that says so.
 */
internal class CoroutineDownstream(private val client: HttpClient, private val baseUrl: String, private val timeoutMs: Long) {
    suspend fun dashboard(userId: String): Reply = try {
        val (profile, metrics) = coroutineScope {
            val profile = async { fetch(DownstreamPaths.profile(userId)) }
            val metrics = async { fetch(DownstreamPaths.metrics(userId)) }
            profile.await() to metrics.await()
        }
        Handlers.dashboard(userId, profile, metrics)
    } catch (e: DownstreamStatusException) {
        Handlers.downstreamFailed(baseUrl, e.status)
    } catch (e: HttpRequestTimeoutException) {
        Handlers.downstreamTimedOut(baseUrl, timeoutMs)
    } catch (e: CancellationException) {
        throw e
    } catch (e: Exception) {
        // Whatever else the client threw (refused, reset, cut short), the downstream gave no complete answer.
        Handlers.downstreamFailed(baseUrl, null)
    }

    private suspend fun fetch(path: String): String {
        val response = client.get(baseUrl + path)
        if (response.status != HttpStatusCode.OK) throw DownstreamStatusException(response.status.value)
        return response.bodyAsText()
    }

    private class DownstreamStatusException(val status: Int) : Exception()
}
