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

/**
 * A client that leaves mid-`/dashboard` must take both downstream calls with it, on every
 * server. The stub here answers only after [STUB_LATENCY_MS], so both calls are still in
 * flight when the client hangs up; the stub then counts each as cancelled when the server
 * closes its connection, or as finished if the server let it run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CancellationTest {
    private val stub = LabProcess.start("stub", Stub.JAR, "--latency-ms", STUB_LATENCY_MS.toString())

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

    @AfterAll
    fun stopStub() = stub.close()

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
    }
}
