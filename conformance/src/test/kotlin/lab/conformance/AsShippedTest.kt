package lab.conformance

import lab.support.Catalogue
import lab.support.ServerConfig
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.Arguments
import org.junit.jupiter.params.provider.MethodSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * `--as-shipped <change>` takes one of the lab's changes to an engine (servers.json's `engines`)
 * out again, so that what it costs can be measured against the engine as shipped. Where a change
 * shows on the wire, a server started without it gives its engine's own answer to the abuse case
 * the change was made for, and names the change on its READY line; with it, the RFC's answer
 * ([ProtocolAbuseTest]). So each switch is seen to switch.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsShippedTest {
    @ParameterizedTest(name = "{0} without {1}: {2}")
    @MethodSource("cases")
    fun `a server without one of the lab's changes gives its engine's own answer`(
        server: String,
        change: String,
        case: AbuseCase,
        answer: List<String>,
    ) {
        ConformanceLab.freshServer(server, "--as-shipped", change).use { shipped ->
            assertTrue("${ServerConfig.AS_SHIPPED}=$change" in shipped.readyLine, "the READY line names it: ${shipped.readyLine}")
            assertEquals(answer, case.run(shipped.baseUrl), "$server without $change, $case")
        }
    }

    companion object {
        /** A change that shows on the wire: its engine, the abuse case it was made for, and the engine's answer as shipped. */
        private class Shown(val engine: String, val change: String, val case: String, val answer: List<String>)

        private val SHOWN = listOf(
            Shown("ktor-netty", "client-frame-masks", "ws: an unmasked client frame", listOf("text a", "close 1000", "dropped")),
            Shown("ktor-netty", "unparsable-head", "smuggling: CL.TE, Content-Length and then chunked", listOf("status 400", "open")),
            Shown("ktor-netty", "unparsable-head", "http: a header of 64 KB", listOf("status 400")),
            Shown("jetty", "no-bare-lf", "request line: a bare LF ending each line", listOf("status 200")),
            Shown("jetty", "version-less-line-400", "request line: two tokens, no version (HTTP/0.9's)", listOf("status 505")),
        )

        @JvmStatic
        fun cases(): List<Arguments> = SHOWN.flatMap { shown ->
            val case = AbuseCase.all.single { it.name == shown.case }
            Catalogue.servers.filter { it.engine == shown.engine }.map { Arguments.of(it.name, shown.change, case, shown.answer) }
        }
    }
}
