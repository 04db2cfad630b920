package lab.conformance

import lab.conformance.ConformanceLab.REQUEST_HEAD_TIMEOUT_MS
import lab.conformance.RawWire.Frame
import lab.conformance.RawWire.Received
import lab.handlers.LabJson
import lab.handlers.RequestHeadTimeout
import lab.handlers.ServerStats
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.io.ByteArrayOutputStream
import java.net.SocketException
import java.net.URI
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * A client that trickles a request's head, a byte at a time, gets [ConformanceLab.REQUEST_HEAD_TIMEOUT_MS]
 * from its first byte and no more: every server then answers 408 and closes the connection. While
 * heads trickle in, no server, the thread-per-request ones included, gives them a request thread.
 * The clock runs only while a head is arriving: a connection at rest is not timed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlowHeadTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a head that trickles past the bound is answered 408, and its connection closed`(name: String) {
        val server = ConformanceLab.server(name)
        RawWire(server.baseUrl, readTimeoutMs = READ_TIMEOUT_MS).use { wire ->
            val began = System.nanoTime()
            val writer = trickle(wire, endlessHead(server.baseUrl))
            val answer = readUntilClosed(wire)
            val tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)
            writer.interrupt()
            println("$name: answered after $tookMs ms of trickle")
            assertEquals(RequestHeadTimeout.answer(REQUEST_HEAD_TIMEOUT_MS).decodeToString(), answer.decodeToString())
            assertTrue(tookMs >= REQUEST_HEAD_TIMEOUT_MS, "$name answered after $tookMs ms, before the bound")
            assertTrue(tookMs < REQUEST_HEAD_TIMEOUT_MS + LATE_MS, "$name answered after $tookMs ms, long after the bound")
        }
        assertEquals(200, LabClients.send(server.baseUrl, "/health").status, "the server lives on")
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `heads on their way in hold no request thread`(name: String) {
        val server = ConformanceLab.server(name)
        val atRest = server.osThreadCount()
        val wires = (1..HEADS).map { RawWire(server.baseUrl, readTimeoutMs = READ_TIMEOUT_MS) }
        try {
            val begun = System.nanoTime()
            fun sinceBegunMs() = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begun)
            var added = 0
            var counts = 0

            fun countThreadsUntil(ms: Long) {
                while (sinceBegunMs() < ms) {
                    added = maxOf(added, server.osThreadCount() - atRest)
                    counts++
                    Thread.sleep(THREAD_COUNT_EVERY_MS)
                }
            }
            wires.forEach { it.write(endlessHead(server.baseUrl).take(HEAD_BEGUN)) }
            countThreadsUntil(SETTLE_MS)
            val stats = LabJson.decode<ServerStats>(LabClients.send(server.baseUrl, "/stats").text)
            assertEquals(1, stats.inFlightRequests, "only the /stats request reaches a handler")
            assertEquals(200, LabClients.send(server.baseUrl, "/health").status, "a whole request is served beside them")
            // Counted until just before the first 408 can come, so a server that takes the heads in late is counted with them.
            // The count includes the threads that served /stats and /health: a few at most, far below the bound.
            val before = counts
            countThreadsUntil(REQUEST_HEAD_TIMEOUT_MS - THREAD_COUNT_EVERY_MS)
            assertTrue(counts - before >= MIN_LATE_COUNTS, "only ${counts - before} late thread count(s): /stats and /health took too long")
            println("$name: $HEADS heads begun: at most +$added threads in $counts counts, ${stats.inFlightRequests} request(s) in flight")
            assertTrue(added < THREADS_NOT_PER_HEAD, "$name gave $HEADS begun heads $added more threads")
            val answer = RequestHeadTimeout.answer(REQUEST_HEAD_TIMEOUT_MS).decodeToString()
            wires.forEachIndexed { i, wire -> assertEquals(answer, readUntilClosed(wire).decodeToString(), "head $i") }
            // Each 408 comes the bound after the server saw its head's first byte: all within LATE_MS of it means every
            // head was in the server by then, while its threads were still being counted.
            val lastAnswerMs = sinceBegunMs()
            assertTrue(lastAnswerMs < REQUEST_HEAD_TIMEOUT_MS + LATE_MS, "$name's last 408 came $lastAnswerMs ms after the heads began")
        } finally {
            wires.forEach { it.close() }
        }
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a head that arrives in pieces within the bound is served`(name: String) {
        val server = ConformanceLab.server(name)
        RawWire(server.baseUrl, readTimeoutMs = READ_TIMEOUT_MS).use { wire ->
            val request = health(server.baseUrl)
            wire.write(request.take(HEAD_BEGUN))
            Thread.sleep(REQUEST_HEAD_TIMEOUT_MS / 2)
            wire.write(request.drop(HEAD_BEGUN))
            assertEquals(200, (wire.readHead() as? RawWire.Reply.Head)?.status)
        }
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a keep-alive connection, after a stray blank line, and a WebSocket at rest past the bound are not timed`(name: String) {
        val server = ConformanceLab.server(name)
        RawWire(server.baseUrl, readTimeoutMs = READ_TIMEOUT_MS).use { keptAlive ->
            RawWire.webSocket(server.baseUrl).use { socket ->
                keptAlive.write(health(server.baseUrl))
                keptAlive.skipBody(keptAlive.readHead() as RawWire.Reply.Head)
                // A blank line after a request, as some clients send (RFC 9112 2.2), begins no head.
                keptAlive.write("\r\n")
                Thread.sleep(REQUEST_HEAD_TIMEOUT_MS + AT_REST_BEYOND_MS)
                keptAlive.write(health(server.baseUrl))
                assertEquals(200, (keptAlive.readHead() as? RawWire.Reply.Head)?.status, "the kept-alive connection")
                socket.send(Frame.text("still here"))
                assertEquals(Received.Got(Frame.text("still here")), socket.receive(), "the WebSocket")
            }
        }
    }

    /** Writes [head] a byte every [TRICKLE_MS], until it is written, the server closes, or the thread is interrupted. */
    private fun trickle(wire: RawWire, head: String): Thread = thread(isDaemon = true, name = "trickle") {
        try {
            for (byte in head) {
                wire.write(byte.toString())
                Thread.sleep(TRICKLE_MS)
            }
        } catch (closed: SocketException) {
            // The server closed the connection: what the test waits for.
        } catch (stopped: InterruptedException) {
            // The test has its answer.
        }
    }

    /** Everything the server sends until it closes the connection (or resets it, once its answer is out). */
    private fun readUntilClosed(wire: RawWire): ByteArray {
        val received = ByteArrayOutputStream()
        try {
            while (true) {
                val b = wire.readByte()
                if (b < 0) break
                received.write(b)
            }
        } catch (reset: SocketException) {
            // A reset after the answer ends the connection as a close does.
        }
        return received.toByteArray()
    }

    private fun health(base: URI) = "GET /health HTTP/1.1\r\nHost: ${base.host}:${base.port}\r\n\r\n"

    /** A head far too long to trickle within the bound. */
    private fun endlessHead(base: URI) = "GET /health HTTP/1.1\r\nHost: ${base.host}:${base.port}\r\nX-Trickle: ${"t".repeat(200)}\r\n\r\n"

    private companion object {
        const val TRICKLE_MS = 100L
        const val HEADS = 200

        /** Bytes of a head sent before the rest is held back: into its request line. */
        const val HEAD_BEGUN = 8

        /** Time for the server to take in every begun head before a request is sent beside them. */
        const val SETTLE_MS = 500L

        /** How often the server's threads are counted while the heads are held. */
        const val THREAD_COUNT_EVERY_MS = 50L

        /** Counts after /stats and /health, up to the first 408: at least half a second of them. */
        const val MIN_LATE_COUNTS = 10

        /** As in ThreadModelTest: a server that gives each of a few hundred connections a thread adds at least that many. */
        const val THREADS_NOT_PER_HEAD = 50
        const val AT_REST_BEYOND_MS = 1_000L

        /** Past the bound by this much, an answer is late: the clock started late, or does not run. */
        const val LATE_MS = 1_500L

        /** Long enough for the answer, which comes [REQUEST_HEAD_TIMEOUT_MS] after the first byte; short enough to fail a server that never answers. */
        const val READ_TIMEOUT_MS = 8_000
    }
}
