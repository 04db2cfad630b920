package lab.clients.probe

import kotlinx.coroutines.future.await
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.ByteBuffer
import java.util.concurrent.Flow

/**
 * The JDK's `java.net.http.HttpClient` through its asynchronous API: one selector thread does
 * the I/O and a small pool delivers the body, which reaches the sink buffer by buffer.
 */
class JdkAsyncClient : ClientUnderTest {
    // HTTP/1.1 as every other client speaks: the default would offer an h2c upgrade on each request.
    private val client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

    override suspend fun getText(url: String): String {
        val response = client.sendAsync(request(url), HttpResponse.BodyHandlers.ofString()).await()
        requireOk(response.statusCode(), url)
        return response.body()
    }

    override suspend fun download(url: String, sink: BodySink): Long {
        val response = client.sendAsync(request(url), HttpResponse.BodyHandlers.fromSubscriber(Counting(sink), Counting::total)).await()
        requireOk(response.statusCode(), url)
        return response.body()
    }

    private fun request(url: String) = HttpRequest.newBuilder(URI(url)).build()

    /** Passes each buffer on and counts the bytes; the JDK calls it one buffer list at a time. */
    private class Counting(private val sink: BodySink) : Flow.Subscriber<List<ByteBuffer>> {
        var total = 0L
        private val copy = ByteArray(READ_BUFFER_BYTES)

        override fun onSubscribe(subscription: Flow.Subscription) = subscription.request(Long.MAX_VALUE)

        override fun onNext(item: List<ByteBuffer>) {
            for (buffer in item) {
                total += buffer.remaining()
                while (buffer.hasRemaining()) {
                    val length = minOf(buffer.remaining(), copy.size)
                    buffer.get(copy, 0, length)
                    sink.accept(copy, 0, length)
                }
            }
        }

        override fun onError(throwable: Throwable) = Unit

        override fun onComplete() = Unit
    }

    // JDK 21 made the client closeable: close() waits for calls in flight and stops its threads.
    override fun close() = client.close()
}
