package lab.bench.collect

import lab.bench.TestServer
import lab.bench.load.Profile
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The wire's response time held to two truths it cannot escape. A real server answers
 * `/delay?ms=D` no sooner than D ms after the request reached it, so every wire time is at
 * least D; and the wire sees a request after the client sent it and the answer before the
 * client read it, so no wire time is longer than the client's own for that request. Between
 * them, each of the [REQUESTS] requests (sent one by one on one connection) must appear
 * exactly once, under its endpoint.
 *
 * It fails when the collector takes its time from its own reads rather than the kernel's
 * stamps (the reader's delays would put some wire times past the client's), pairs a response
 * with the wrong request, loses requests or counts WebSocket frames or other ports' traffic.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class WireLatencyKnownTruthIT {
    private val root = File(System.getProperty("lab.root"))
    private val dir = TestServer.resultsDir("wire-truth")

    @Test
    fun `every request's wire time lies between the server's own delay and the client's time`() {
        TestServer.start(root, "jetty-virtual", dir).use { server ->
            val url = server.url
            val clock = RunClock(Profile.load(File(root, "loadtests/profiles"), "smoke")).apply { markLoadStart() }
            val http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
            val out = File(dir, "wire.csv")
            val clientMs = mutableListOf<Double>()
            // Reading packets needs root or CAP_NET_RAW: CI runs as root; a user's run skips, as the cgroup tests do.
            val opened = try {
                WireLatency.open("127.0.0.1", URI(url).port, out, clock)
            } catch (e: PacketSocket.Unavailable) {
                assumeTrue(false, e.message)
                return
            }
            opened.use { wire ->
                wire.start()
                repeat(REQUESTS) {
                    val request = HttpRequest.newBuilder(URI("$url/delay?ms=$DELAY_MS")).build()
                    val startNs = System.nanoTime()
                    val response = http.send(request, HttpResponse.BodyHandlers.ofString())
                    clientMs += (System.nanoTime() - startNs) / 1e6
                    assertEquals(200, response.statusCode())
                }
            }
            val rows = out.readLines().drop(1).map { it.split(',') }
            assertEquals(List(REQUESTS) { "delay" }, rows.map { it[2] }, "one row per request, under its endpoint")
            val wireMs = rows.map { it[3].toDouble() }
            println("wire ms: ${wireMs.map { "%.2f".format(it) }}\nclient ms: ${clientMs.map { "%.2f".format(it) }}")
            wireMs.zip(clientMs).forEachIndexed { i, (wire, client) ->
                assertTrue(wire >= DELAY_MS, "request $i: the wire saw it answered in $wire ms, sooner than the server's $DELAY_MS ms")
                assertTrue(wire <= client, "request $i: the wire saw $wire ms, longer than the client's own $client ms")
            }
        }
    }

    private companion object {
        const val REQUESTS = 20
        const val DELAY_MS = 20
    }
}
