package lab.conformance

import lab.handlers.LabJson
import lab.stub.StubStats
import lab.support.Catalogue
import lab.support.Stub
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.net.Socket
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * A client that leaves mid-`/dashboard` must take both downstream calls with it, on every
 * server. The stub here answers only after [STUB_LATENCY_MS], so both calls are still in
 * flight when the client hangs up; the stub then counts each as cancelled when the server
 * closes its connection, or as finished if the server let it run.
 *
 * Watching for a departed client must not take anything from one who stays: a kept-alive
 * connection's dashboards, one after another, are all answered in full on the same connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CancellationTest {
    private val stub = LabProcess.start("stub", Stub.JAR, "--latency-ms", STUB_LATENCY_MS.toString())
    private val quickStub = LabProcess.start("stub", Stub.JAR, "--latency-ms", QUICK_STUB_LATENCY_MS.toString())

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a client that disconnects mid-dashboard cancels both downstream calls`(server: String) {
        Catalogue.named(server).start("--downstream-url", stub.baseUrl.toString()).use { server ->
            val before = stubStats()
            Socket(server.baseUrl.host, server.baseUrl.port).use { client ->
                client.getOutputStream().write("GET /dashboard/leaver HTTP/1.1\r\nHost: lab\r\n\r\n".toByteArray())
                awaitStub("both calls started") { it.started - before.started >= 2 }
            }
            val after = awaitStub("both calls cancelled") { it.cancelled - before.cancelled >= 2 }
            assertEquals(2, after.cancelled - before.cancelled, "calls cancelled")
            assertEquals(0, after.finished - before.finished, "calls that ran to the end for nobody")
        }
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a client that stays has every dashboard of a kept-alive connection answered on it`(server: String) {
        Catalogue.named(server).start("--downstream-url", quickStub.baseUrl.toString()).use { server ->
            RawWire(server.baseUrl).use { wire ->
                repeat(KEPT_ALIVE_DASHBOARDS) { i ->
                    wire.write("GET /dashboard/stayer-$i HTTP/1.1\r\nHost: lab\r\n\r\n")
                    val head = wire.readHead() as? RawWire.Reply.Head ?: error("dashboard $i of the connection got no answer")
                    assertEquals(200, head.status, "status of dashboard $i")
                    assertEquals(null, head.headers["connection"], "dashboard $i keeps the connection open")
                    assertTrue("stayer-$i" in wire.skipBody(head).toString(Charsets.UTF_8), "dashboard $i's body is whole")
                }
            }
        }
    }

    @AfterAll
    fun stopStubs() {
        stub.close()
        quickStub.close()
    }

    private fun stubStats(): StubStats = LabJson.decode(LabClients.send(stub.baseUrl, "/stats").text)

    private fun awaitStub(what: String, condition: (StubStats) -> Boolean): StubStats {
        // Well inside the stub's latency: a call that was not cancelled cannot finish first.
        val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STUB_LATENCY_MS / 2)
        while (true) {
            val stats = stubStats()
            if (condition(stats)) return stats
            check(System.nanoTime() < deadline) { "stub never saw $what: $stats" }
            Thread.sleep(20)
        }
    }

    private companion object {
        const val STUB_LATENCY_MS = 10_000L
        const val QUICK_STUB_LATENCY_MS = 20L
        const val KEPT_ALIVE_DASHBOARDS = 20
    }
}
