package lab.conformance

import lab.handlers.ContentTypes
import lab.handlers.LabJson
import lab.handlers.ServerStats
import lab.support.Catalogue
import lab.verify.ContractCases
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.nio.ByteBuffer
import java.util.concurrent.TimeUnit
import kotlin.random.Random
import kotlin.test.assertContentEquals
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertTrue

/**
 * The handler contract, checked against one server. Each server runs the whole suite
 * through a one-line subclass, as Ktor tests its engines; so every server answers every
 * request of [ContractCases] with the same status, content type and body.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class ConformanceSuite(val serverName: String) {
    private val entry = Catalogue.named(serverName)
    private val server: LabProcess get() = ConformanceLab.server(serverName)

    @ParameterizedTest(name = "{0}")
    @FieldSource("lab.verify.ContractCases#good")
    fun `answers a good request exactly as the contract says`(case: ContractCases.Case) {
        assertEquals(case.expected, LabClients.send(server.baseUrl, case.target, case.method))
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("lab.verify.ContractCases#bad")
    fun `rejects bad input with the core's 4xx and a JSON error`(case: ContractCases.Case) {
        val answer = LabClients.send(server.baseUrl, case.target, case.method)
        assertEquals(case.expected, answer)
        assertEquals(ContentTypes.JSON, answer.contentType)
        assertTrue(answer.text.startsWith("""{"error":"""), answer.text)
        assertTrue(server.isAlive, "bad input must never take the server down")
    }

    @Test
    fun `reports the catalogue's engine and model, and its load, on stats`() {
        val answer = LabClients.send(server.baseUrl, "/stats")
        assertEquals(200, answer.status)
        assertEquals(ContentTypes.JSON, answer.contentType)
        val stats = LabJson.decode<ServerStats>(answer.text)
        assertEquals(entry.engine to entry.model, stats.engine to stats.model, "servers.json must say what the server is")
        assertTrue(stats.inFlightRequests >= 1, "the stats request itself is in flight: $stats")
        assertTrue(stats.threads > 0, "$stats")
    }

    @Test
    fun `echoes text frames`() {
        val probe = LabClients.openWebSocket(server.baseUrl)
        for (message in listOf("hello", "", "ü€𝄞 unicode", "x".repeat(ConformanceLab.MAX_FRAME_BYTES))) {
            probe.socket.sendText(message, true).get(10, TimeUnit.SECONDS)
            assertEquals(SocketProbe.Event.Text(message), probe.next())
        }
        probe.socket.sendClose(1000, "done").get(10, TimeUnit.SECONDS)
    }

    @Test
    fun `echoes binary frames`() {
        val probe = LabClients.openWebSocket(server.baseUrl)
        for (size in listOf(1, 100, ConformanceLab.MAX_FRAME_BYTES)) {
            val payload = Random(size).nextBytes(size)
            probe.socket.sendBinary(ByteBuffer.wrap(payload), true).get(10, TimeUnit.SECONDS)
            assertContentEquals(payload, assertIs<SocketProbe.Event.Binary>(probe.next()).bytes)
        }
        probe.socket.sendClose(1000, "done").get(10, TimeUnit.SECONDS)
    }

    @Test
    fun `answers a ping with a pong carrying the same payload`() {
        val probe = LabClients.openWebSocket(server.baseUrl)
        probe.socket.sendPing(ByteBuffer.wrap("are you there".toByteArray())).get(10, TimeUnit.SECONDS)
        assertContentEquals("are you there".toByteArray(), assertIs<SocketProbe.Event.Pong>(probe.next()).bytes)
        // The socket still echoes after a ping.
        probe.socket.sendText("after ping", true).get(10, TimeUnit.SECONDS)
        assertEquals(SocketProbe.Event.Text("after ping"), probe.next())
        probe.socket.sendClose(1000, "done").get(10, TimeUnit.SECONDS)
    }

    @Test
    fun `closes a socket with 1009 when a frame is over the size limit`() {
        val probe = LabClients.openWebSocket(server.baseUrl)
        probe.socket.sendText("x".repeat(ConformanceLab.MAX_FRAME_BYTES + 1), true).get(10, TimeUnit.SECONDS)
        assertEquals(1009, assertIs<SocketProbe.Event.Closed>(probe.next()).code)
        assertEquals(200, LabClients.send(server.baseUrl, "/health").status, "the server lives on")
    }

    @Test
    fun `counts an open socket on stats`() {
        val probe = LabClients.openWebSocket(server.baseUrl)
        probe.socket.sendText("warm", true).get(10, TimeUnit.SECONDS)
        probe.next()
        val stats = LabJson.decode<ServerStats>(LabClients.send(server.baseUrl, "/stats").text)
        assertTrue(stats.openSockets >= 1, "$stats")
        probe.socket.sendClose(1000, "done").get(10, TimeUnit.SECONDS)
    }
}

// One line a server of servers.json; CatalogueTest fails while one has none.
class KtorCoroutineConformanceTest : ConformanceSuite("ktor-coroutine")

class JettyVirtualConformanceTest : ConformanceSuite("jetty-virtual")

class JettyPlatformConformanceTest : ConformanceSuite("jetty-platform")

class JettyCoroutineConformanceTest : ConformanceSuite("jetty-coroutine")

class JettyCoroutineVirtualConformanceTest : ConformanceSuite("jetty-coroutine-virtual")
