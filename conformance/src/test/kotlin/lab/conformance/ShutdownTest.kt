package lab.conformance

import lab.support.Catalogue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertTrue

/** SIGTERM (what `make serve` gets on Ctrl-C, and what the harness sends) stops a busy server within 5 s. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShutdownTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a server with open sockets stops gracefully within 5 s of SIGTERM`(name: String) {
        val server = Catalogue.named(name).start()
        val probes = (1..20).map { LabClients.openWebSocket(server.baseUrl) }
        probes.first().socket.sendText("busy", true).get(10, TimeUnit.SECONDS)
        probes.first().next()

        val tookMs = server.stop()

        println("$name stopped $tookMs ms after SIGTERM")
        assertTrue(!server.isAlive, "$name is still running")
        assertTrue(tookMs <= 5_000, "$name took $tookMs ms to stop")
    }
}
