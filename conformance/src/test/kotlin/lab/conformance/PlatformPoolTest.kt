package lab.conformance

import lab.handlers.ContentTypes
import lab.handlers.Handlers
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertTrue

/** An exhausted platform pool says so at once (503, or 1013 for a socket) instead of queueing. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlatformPoolTest {
    private val threads = 4

    @Test
    fun `a request beyond the pool is answered 503 with a JSON error, at once`() {
        ServerKind.PLATFORM.start("--threads", threads.toString()).use { server ->
            val busy = (1..threads).map {
                LabClients.http.sendAsync(
                    HttpRequest.newBuilder(server.baseUrl.resolve("/delay?ms=$HOLD_MS")).build(),
                    HttpResponse.BodyHandlers.ofString(),
                )
            }
            awaitPoolThreads(server, threads)

            val startNs = System.nanoTime()
            val answer = LabClients.send(server.baseUrl, "/json")
            val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)

            val overloaded = Handlers.overloaded()
            assertEquals(Answer(503, ContentTypes.JSON, overloaded.body), answer)
            assertTrue(tookMs < HOLD_MS / 2, "the 503 must not wait for a thread to free up; it took $tookMs ms")
            assertTrue(busy.none { it.isDone }, "the requests holding the pool are still being served")
        }
    }

    @Test
    fun `a WebSocket beyond the pool is closed with 1013 try again later`() {
        ServerKind.PLATFORM.start("--threads", threads.toString()).use { server ->
            val held = (1..threads).map { LabClients.openWebSocket(server.baseUrl) }
            held.forEach {
                it.socket.sendText("hold", true).get(10, TimeUnit.SECONDS)
                it.next()
            }
            val refused = LabClients.openWebSocket(server.baseUrl)
            assertEquals(1013, assertIs<SocketProbe.Event.Closed>(refused.next()).code)
            held.forEach { it.socket.abort() }
        }
    }

    private companion object {
        /** How long the requests that fill the pool hold their threads: far longer than a 503 may take. */
        const val HOLD_MS = 20_000L
    }

    /**
     * Waits until the pool has started all its threads. Only the delayed requests have asked
     * for one, so then all are taken. (Asking the server itself would take a thread too.)
     */
    private fun awaitPoolThreads(server: LabProcess, expected: Int) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
        while (server.osThreadNames().count { it.startsWith("platform-") } < expected) {
            check(System.nanoTime() < deadline) { "the platform server never started its $expected pool threads" }
            Thread.sleep(20)
        }
    }
}
