package lab.conformance

import lab.handlers.WebSocketHandshake
import lab.support.Catalogue
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * Every server of the catalogue held to a peer's standard: the Autobahn testsuite's cases
 * ([AutobahnRun.SECTIONS]), run by the suite's own client. Each case must be OK, NON-STRICT
 * (the right answer, late: a message echoed after the frame that failed the socket had been
 * read, or invalid UTF-8 caught at the message's end instead of the frame's) or INFORMATIONAL
 * (the suite only reports it: the close code a server picks), for the messages and for the
 * closing handshake; or the verdict its engine's [Divergences.autobahn] declares.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class AutobahnTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `every Autobahn case passes, or holds to its engine's declared divergence`(server: String) {
        val verdicts = AutobahnRun.verdicts.getValue(server) - AutobahnRun.OFFER_CASES.toSet()
        val counts = verdicts.values.groupingBy { it.behavior }.eachCount().toSortedMap()
        println("$server: ${verdicts.size} Autobahn cases: $counts")
        assertTrue(verdicts.size > 200, "$server: wstest ran only ${verdicts.size} cases of sections ${AutobahnRun.SECTIONS}")
        val engine = Catalogue.named(server).engine
        val failed = verdicts.filter { (case, verdict) ->
            val allowed = Divergences.autobahnOf(engine, case)?.answers?.flatten() ?: PASSING
            verdict.behavior !in allowed || verdict.behaviorClose !in allowed
        }
        assertEquals(
            emptyMap(),
            failed,
            "$server: cases that neither pass nor hold to a divergence declared in Divergences.kt (wstest's report: conformance/target/autobahn/$server/index.html)",
        )
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `agrees to the same WebSocket extensions as every server, so to no compression`(server: String) {
        // The server agrees to what WebSocketHandshake.extensions declares; Autobahn's compression cases offer permessage-deflate.
        val expected = if ("permessage-deflate" in WebSocketHandshake.extensions) "OK" else "UNIMPLEMENTED"
        AutobahnRun.OFFER_CASES.forEach { case ->
            assertEquals(expected, AutobahnRun.verdicts.getValue(server).getValue(case).behavior, "$server, Autobahn case $case")
        }
    }

    private companion object {
        val PASSING = setOf("OK", "NON-STRICT", "INFORMATIONAL")
    }
}
