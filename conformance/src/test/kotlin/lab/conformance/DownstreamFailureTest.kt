package lab.conformance

import lab.handlers.ContentTypes
import lab.handlers.Handlers
import lab.support.Catalogue
import lab.verify.Answer
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.net.InetAddress
import java.net.InetSocketAddress
import java.nio.channels.SocketChannel
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals

/** With the downstream gone, `/dashboard` is a 502 with the same JSON error on every server. */
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
}
