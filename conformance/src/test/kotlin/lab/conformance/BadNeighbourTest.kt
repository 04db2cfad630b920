package lab.conformance

import lab.support.Catalogue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.io.IOException
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals

/**
 * A bad request is its own connection's business: whatever one client sends, a well-formed
 * request on another connection gets its answer. Round after round, a client sends a request
 * whose header is over the servers' limit on a connection of its own, and then a `GET /health`
 * goes out on one kept-alive connection, which must be answered 200 every time.
 *
 * Jetty 12.1 (12.1.12 and 12.1.14 alike; not 12.0.40) broke this: after a bad request, two of its
 * threads used one pooled request buffer, and the next connection to take it parsed the bad
 * client's bytes (`SerialHttpConnection` in jetty-adapter has the mechanism, and the lock that
 * ends it). The defect showed most in a server's first seconds, so each server here is started
 * for this test alone.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BadNeighbourTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a request on one connection is answered whatever another connection sent before it`(name: String) {
        holdsItsNeighbours(name)
    }

    /**
     * The same with each alternative servers.json declares in place of one of the lab's changes (the Jetty servers'
     * non-pooling buffer pool in place of their fill lock): the alternative is only worth comparing if it ends the defect too.
     */
    @ParameterizedTest
    @FieldSource("alternatives")
    fun `an alternative to the lab's change holds its neighbours apart too`(arm: String) {
        val entry = Catalogue.arm(arm)
        holdsItsNeighbours(entry.armOf!!, *entry.asShippedArgs.toTypedArray())
    }

    private fun holdsItsNeighbours(name: String, vararg options: String) {
        ConformanceLab.freshServer(name, *options).use { server ->
            val big = "x".repeat(OVERSIZE_BYTES)
            // Its own path, so that the other connection's answers cannot pass for its own should they meet.
            val oversize = "GET /bad-neighbour HTTP/1.1\r\nHost: ${server.baseUrl.authority}\r\nX-Big: $big\r\n\r\n"
            val health = "GET /health HTTP/1.1\r\nHost: ${server.baseUrl.authority}\r\n\r\n"
            val wrong = mutableListOf<String>()
            var kept = RawWire(server.baseUrl)
            repeat(ROUNDS) { round ->
                RawWire(server.baseUrl).use { bad ->
                    // The server may answer and close before it has read all of it: a reset here is the bad client's own.
                    try {
                        bad.write(oversize)
                        bad.readHead()
                    } catch (e: IOException) {
                        // nothing: only the other connection is under test
                    }
                }
                kept.write(health)
                val head = kept.readHead()
                val status = (head as? RawWire.Reply.Head)?.also { kept.skipBody(it) }?.status
                if (status != 200) {
                    wrong += "round $round: " + (status?.let { "status $it" } ?: "$head")
                    // The server may be closing the connection after a wrong answer: the next round starts on a new one.
                    kept.close()
                    kept = RawWire(server.baseUrl)
                }
            }
            // One answer a request: a second one, for bytes that were not this connection's, would be waiting here.
            assertEquals(
                RawWire.Reply.Silent,
                kept.readHead(),
                "$name ${options.joinToString(" ")}: the kept-alive connection after its last answer",
            )
            kept.close()
            assertEquals(
                emptyList(),
                wrong,
                "$name ${options.joinToString(" ")}: answers to a well-formed GET /health after another client's oversize header",
            )
        }
    }

    companion object {
        /** Each catalogue server with each alternative its engine declares, as an arm: `server:alternative`. */
        @JvmField
        val alternatives: List<String> = Catalogue.servers.flatMap { server ->
            Catalogue.engines.getValue(server.engine).alternatives.map { "${server.name}:${it.name}" }
        }

        /**
         * Rounds enough to catch Jetty 12.1's defect on the lab's Jetty servers without their lock: 5,000 failed the
         * test in 5 runs of 5 (10 of the 15 Jetty servers' runs, 1 to 5 wrong answers each); 3,000 in 2 runs of 3.
         */
        private const val ROUNDS = 5_000

        /** Past every server's limit on a request head (8 KiB on Jetty and on Ktor's Netty). */
        private const val OVERSIZE_BYTES = 64 * 1024
    }
}
