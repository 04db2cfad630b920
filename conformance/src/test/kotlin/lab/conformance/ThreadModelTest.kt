package lab.conformance

import lab.handlers.LabJson
import lab.handlers.ServerStats
import lab.support.Catalogue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertTrue

/**
 * The lab's premise: an idle WebSocket costs the platform server one OS thread, and the
 * other two servers next to none. Each server starts fresh, so its resting thread count is
 * its own, and the count comes from the kernel (`/proc/<pid>/status`), not from the JVM.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ThreadModelTest {
    private val sockets = 500

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `an idle WebSocket costs an OS thread exactly where the catalogue says a socket holds one`(name: String) {
        val entry = Catalogue.named(name)
        entry.start().use { server ->
            val atRest = server.osThreadCount()
            val probes = (1..sockets).map { LabClients.openWebSocketAsync(server.baseUrl) }
                .map { it.get(60, TimeUnit.SECONDS) }
            try {
                awaitOpenSockets(server, sockets)
                val withSockets = server.osThreadCount()
                val added = withSockets - atRest
                println("$name: $atRest threads at rest, $withSockets with $sockets idle sockets (+$added)")
                if (entry.traits.threadPerSocket) {
                    assertTrue(added >= sockets, "$name holds a thread per socket: expected at least $sockets more threads, got +$added")
                } else {
                    assertTrue(added < 50, "$name holds no thread per socket: expected fewer than 50 more threads, got +$added")
                }
            } finally {
                probes.forEach { it.socket.abort() }
            }
        }
    }

    /** The server counts a socket once its task runs, so this also waits for every platform thread to exist. */
    private fun awaitOpenSockets(server: LabProcess, expected: Int) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
        while (true) {
            val stats = LabJson.decode<ServerStats>(LabClients.send(server.baseUrl, "/stats").text)
            if (stats.openSockets >= expected) return
            check(System.nanoTime() < deadline) { "only ${stats.openSockets} of $expected sockets open after 60 s" }
            Thread.sleep(100)
        }
    }
}
