package lab.clients.probe

import kotlinx.coroutines.suspendCancellableCoroutine
import okhttp3.Call
import okhttp3.Callback
import okhttp3.Request
import okhttp3.Response
import java.io.IOException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException

/**
 * OkHttp's own asynchronous API, `Call.enqueue`, bridged to a coroutine: the call, body
 * included, runs on the dispatcher's executor, and the coroutine waits suspended.
 */
class OkHttpAsyncClient(private val pool: OkHttpPool) : ClientUnderTest {
    override suspend fun getText(url: String): String = call(url) { response -> response.body.string() }

    override suspend fun download(url: String, sink: BodySink): Long = call(url) { response -> response.body.byteStream().drainTo(sink) }

    private suspend fun <T> call(url: String, read: (Response) -> T): T {
        val call = pool.client.newCall(Request.Builder().url(url).build())
        return suspendCancellableCoroutine { continuation ->
            continuation.invokeOnCancellation { call.cancel() }
            call.enqueue(
                object : Callback {
                    override fun onResponse(call: Call, response: Response) {
                        val result = runCatching {
                            response.use {
                                requireOk(it.code, url)
                                read(it)
                            }
                        }
                        result.fold(continuation::resume, continuation::resumeWithException)
                    }

                    override fun onFailure(call: Call, e: IOException) = continuation.resumeWithException(e)
                },
            )
        }
    }

    override fun close() = pool.close()
}
