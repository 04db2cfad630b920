package lab.conformance

import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertTrue

/** SIGTERM (what `make serve` gets on Ctrl-C, and what the harness sends) stops a busy server within 5 s. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShutdownTest {
    @ParameterizedTest
    @EnumSource(ServerKind::class)
    fun `a server with open sockets stops gracefully within 5 s of SIGTERM`(kind: ServerKind) {
        val server = kind.start()
        val probes = (1..20).map { LabClients.openWebSocket(server.baseUrl) }
        probes.first().socket.sendText("busy", true).get(10, TimeUnit.SECONDS)
        probes.first().next()

        val tookMs = server.stop()

        println("$kind stopped $tookMs ms after SIGTERM")
        assertTrue(!server.isAlive, "$kind is still running")
        assertTrue(tookMs <= 5_000, "$kind took $tookMs ms to stop")
    }
}
