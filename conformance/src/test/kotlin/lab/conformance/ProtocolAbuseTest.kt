package lab.conformance

import lab.support.Catalogue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * Every server of the catalogue against every [AbuseCase]: it gives the RFC's answer, or the
 * answer its engine's [Divergences] declare; and either way it still serves `/health`, and a
 * socket opened before the case still echoes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProtocolAbuseTest {
    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("cases")
    fun `answers bad input as its RFC says, or as its engine's divergence declares`(server: String, case: AbuseCase) {
        val lab = ConformanceLab.server(server)
        val before = LabClients.openWebSocket(lab.baseUrl)
        val divergence = Divergences.of(Catalogue.named(server).engine, case.name)
        val expected = divergence?.answers ?: case.answers
        val why = "$server, $case (RFC ${case.rfc})" + (divergence?.let { "; declared divergence: ${it.reason}" } ?: "")
        val answer = case.run(lab.baseUrl)
        assertTrue(answer in expected, "$why: expected ${expected.joinToString(" or ")}, got $answer")
        assertEquals(200, LabClients.send(lab.baseUrl, "/health").status, "the server lives on")
        before.socket.sendText("still here", true).get(10, TimeUnit.SECONDS)
        assertEquals(SocketProbe.Event.Text("still here"), before.next(), "a socket opened before the case still echoes")
        before.socket.sendClose(1000, "done").get(10, TimeUnit.SECONDS)
    }

    companion object {
        @JvmStatic
        fun cases(): List<Arguments> = Servers.all.flatMap { server -> AbuseCase.all.map { Arguments.of(server, it) } }
    }
}
