package lab.conformance

import lab.handlers.ContentTypes
import lab.handlers.Handlers
import lab.support.Catalogue
import lab.support.ReadyLine
import lab.support.ServerConfig
import lab.support.ServerEntry
import lab.verify.Answer
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertTrue

/**
 * An exhausted pool says so at once (503, or 1013 for a socket) instead of queueing: on every
 * server the catalogue says has a bounded pool (`--threads`), whose threads are named `<model>-N`.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BoundedPoolTest {
    private val threads = 4

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#withBoundedPool")
    fun `a request beyond the pool is answered 503 with a JSON error, at once`(name: String) {
        val entry = Catalogue.named(name)
        entry.start("--threads", threads.toString()).use { server ->
            val busy = (1..threads).map {
                LabClients.http.sendAsync(
                    HttpRequest.newBuilder(server.baseUrl.resolve("/delay?ms=$HOLD_MS")).build(),
                    HttpResponse.BodyHandlers.ofString(),
                )
            }
            awaitPoolThreads(entry, server, threads)

            val startNs = System.nanoTime()
            val answer = LabClients.send(server.baseUrl, "/json")
            val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)

            val overloaded = Handlers.overloaded()
            assertEquals(Answer(503, ContentTypes.JSON, overloaded.body), answer)
            assertTrue(tookMs < HOLD_MS / 2, "the 503 must not wait for a thread to free up; it took $tookMs ms")
            assertTrue(busy.none { it.isDone }, "the requests holding the pool are still being served")
        }
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#withBoundedPool")
    fun `a WebSocket beyond the pool is closed with 1013 try again later`(name: String) {
        Catalogue.named(name).start("--threads", threads.toString()).use { server ->
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

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#withBoundedPool")
    fun `the READY line gives the pool's bound, the server's own limit on threads`(name: String) {
        Catalogue.named(name).start("--threads", threads.toString()).use { server ->
            assertEquals(threads.toString(), ReadyLine.fact(server.readyLine, ServerConfig.POOL_THREADS_MAX), server.readyLine)
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
    private fun awaitPoolThreads(entry: ServerEntry, server: LabProcess, expected: Int) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10)
        while (server.osThreadNames().count { it.startsWith("${entry.model}-") } < expected) {
            check(System.nanoTime() < deadline) { "${entry.name} never started its $expected pool threads" }
            Thread.sleep(20)
        }
    }
}
