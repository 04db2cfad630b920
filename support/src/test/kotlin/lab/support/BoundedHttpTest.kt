package lab.support

import com.sun.net.httpserver.HttpServer
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.time.Duration
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/** A server that sends its answer's headers and half its body, then never the rest, against one that answers in full. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BoundedHttpTest {
    private val never = CountDownLatch(1)
    private val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0).apply {
        createContext("/stuck") { exchange ->
            exchange.sendResponseHeaders(200, 100)
            exchange.responseBody.write(ByteArray(50))
            exchange.responseBody.flush()
            never.await(20, TimeUnit.SECONDS)
            exchange.close()
        }
        createContext("/whole") { exchange ->
            exchange.sendResponseHeaders(200, 5)
            exchange.responseBody.use { it.write("whole".toByteArray()) }
        }
        executor = Executors.newCachedThreadPool()
        start()
    }
    private val http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

    @AfterEach
    fun stop() {
        never.countDown()
        server.stop(0)
        http.shutdownNow()
    }

    private fun request(path: String, timeout: Duration = Duration.ofMillis(300)) =
        HttpRequest.newBuilder(URI("http://127.0.0.1:${server.address.port}$path")).timeout(timeout).build()

    @Test
    fun `the request's own timeout stops at the headers, so a body that never ends holds send for ever`() {
        val answer = http.sendAsync(request("/stuck"), HttpResponse.BodyHandlers.ofByteArray())

        assertFailsWith<TimeoutException> { answer.get(2, TimeUnit.SECONDS) }
        answer.cancel(true)
    }

    @Test
    fun `sendWithin ends an answer whose body never ends, with an HttpTimeoutException that names the request`() {
        val startNs = System.nanoTime()

        val failure = assertFailsWith<HttpTimeoutException> {
            http.sendWithin(request("/stuck", Duration.ofMillis(500)), HttpResponse.BodyHandlers.ofByteArray())
        }

        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(10), "it ended within its bound, not the server's 20 s")
        assertEquals("GET http://127.0.0.1:${server.address.port}/stuck got no whole answer within 500 ms", failure.message)
    }

    @Test
    fun `sendWithin returns a whole answer as send does`() {
        val response = http.sendWithin(request("/whole", Duration.ofSeconds(5)), HttpResponse.BodyHandlers.ofString())

        assertEquals(200 to "whole", response.statusCode() to response.body())
    }
}
