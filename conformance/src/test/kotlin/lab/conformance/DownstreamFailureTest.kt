package lab.conformance

import lab.handlers.ContentTypes
import lab.handlers.Handlers
import lab.handlers.Reply
import lab.stub.StubFault
import lab.support.Catalogue
import lab.verify.Answer
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import org.junit.jupiter.params.provider.MethodSource
import java.net.InetAddress
import java.net.InetSocketAddress
import java.nio.channels.SocketChannel
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals

/**
 * Whatever the downstream does wrong, `/dashboard` gets the same answer on every server: a
 * 502 naming what the downstream did, or a 504 once it has taken longer than the servers'
 * one downstream timeout; and the server goes on serving.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DownstreamFailureTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `an unreachable downstream is a 502 naming it`(name: String) {
        // A port held for the whole test by a socket that is bound but never listens, so a
        // connection to it is refused. (A port merely found free was once handed to the server
        // under test itself, which then answered its own downstream call with a 404.)
        SocketChannel.open().use { held ->
            held.bind(InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            val downstreamUrl = "http://127.0.0.1:${(held.localAddress as InetSocketAddress).port}"
            Catalogue.named(name).start("--downstream-url", downstreamUrl).use { server ->
                val expected = Handlers.downstreamFailed(downstreamUrl, null)
                assertEquals(Answer(502, ContentTypes.JSON, expected.body), LabClients.send(server.baseUrl, "/dashboard/u1"))
                assertEquals(200, LabClients.send(server.baseUrl, "/health").status, "the server lives on")
            }
        }
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("serversAndFaults")
    fun `a downstream that misbehaves gets the same answer from every server`(name: String, fault: StubFault) {
        val server = ConformanceLab.server(name)
        val expected = expected(fault, ConformanceLab.stub.baseUrl.toString().trimEnd('/'))
        assertEquals(
            Answer(expected.status, expected.contentType, expected.body),
            LabClients.send(server.baseUrl, "/dashboard/${fault.userId}"),
        )
        assertEquals(200, LabClients.send(server.baseUrl, "/health").status, "the server lives on")
        assertEquals(200, LabClients.send(server.baseUrl, "/dashboard/after-${fault.slug}").status, "and its downstream calls work again")
    }

    /** The contract's answer to each fault of the stub's `/profile` call. */
    private fun expected(fault: StubFault, downstreamUrl: String): Reply = when (fault) {
        StubFault.SERVER_ERROR -> Handlers.downstreamFailed(downstreamUrl, 500)
        StubFault.NOT_FOUND -> Handlers.downstreamFailed(downstreamUrl, 404)
        StubFault.NOT_JSON -> Handlers.dashboard(fault.userId, "<html>", "{}")
        StubFault.CUT_SHORT, StubFault.RESET -> Handlers.downstreamFailed(downstreamUrl, null)
        StubFault.HANG -> Handlers.downstreamTimedOut(downstreamUrl, ConformanceLab.DOWNSTREAM_TIMEOUT_MS)
    }

    fun serversAndFaults(): List<Array<Any>> = Servers.all.flatMap { server -> StubFault.entries.map { arrayOf(server, it) } }
}
