package lab.support

import java.io.IOException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * Sends [request] and returns its whole answer within the request's own timeout, or throws [HttpTimeoutException].
 *
 * The JDK client's request timeout ends when the answer's headers arrive; its body has no bound. In one `make bench` a
 * contract check's `HttpClient.send` waited 23 minutes for an answer whose 66 KB had all reached the harness's socket
 * (`ss`: nothing queued either way), and the run with it. (JDK 25, the harness's.) A harness that waits on a server must end by itself.
 */
fun <T> HttpClient.sendWithin(request: HttpRequest, body: HttpResponse.BodyHandler<T>): HttpResponse<T> {
    val within = request.timeout().orElseThrow {
        IllegalArgumentException("${request.uri()}: a request sent within its time needs a timeout")
    }
    val answer = sendAsync(request, body)
    try {
        return answer.get(within.toMillis(), TimeUnit.MILLISECONDS)
    } catch (e: TimeoutException) {
        answer.cancel(true)
        throw HttpTimeoutException("${request.method()} ${request.uri()} got no whole answer within ${within.toMillis()} ms")
    } catch (e: InterruptedException) {
        answer.cancel(true) // as send does: an interrupted caller leaves no exchange running in the client
        throw e
    } catch (e: ExecutionException) {
        throw when (val cause = e.cause) {
            is IOException, is RuntimeException, is Error -> cause
            else -> IOException(cause)
        }
    }
}
