package lab.handlers

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertIs

class RouterTest {
    private val router = Router(Limits(maxDelayMs = 1_000, maxCpuIterations = 100, maxBytes = 10, maxFrameBytes = 8))

    private fun route(target: String, method: String = "GET"): Endpoint {
        val path = target.substringBefore('?')
        val query = target.substringAfter('?', "").split('&').filter { it.isNotEmpty() }
            .associate { it.substringBefore('=') to it.substringAfter('=', "") }
        return router.route(method, path, query::get)
    }

    private fun rejection(target: String, method: String = "GET"): Pair<Int, String> {
        val endpoint = assertIs<Endpoint.Rejected>(route(target, method))
        return endpoint.reply.status to LabJson.decode<ErrorBody>(endpoint.reply.body.decodeToString()).error
    }

    @Test
    fun `fixed paths map to their endpoints`() {
        assertEquals(Endpoint.Health, route("/health"))
        assertEquals(Endpoint.Hello, route("/json"))
        assertEquals(Endpoint.Stats, route("/stats"))
        assertEquals(Endpoint.WebSocketWithoutUpgrade, route("/ws"))
    }

    @Test
    fun `numbers within the limits are accepted, bounds included`() {
        assertEquals(Endpoint.Delay(0), route("/delay?ms=0"))
        assertEquals(Endpoint.Delay(1_000), route("/delay?ms=1000"))
        assertEquals(Endpoint.Cpu(100), route("/cpu?iterations=100"))
        assertEquals(Endpoint.Bytes(10), route("/bytes?size=10"))
    }

    @Test
    fun `numbers outside the limits are a 400 that names the range`() {
        assertEquals(400 to "query parameter 'ms' must be a whole number from 0 to 1000, got '1001'", rejection("/delay?ms=1001"))
        assertEquals(400 to "query parameter 'iterations' must be a whole number from 1 to 100, got '0'", rejection("/cpu?iterations=0"))
        assertEquals(400 to "query parameter 'size' must be a whole number from 0 to 10, got '-1'", rejection("/bytes?size=-1"))
    }

    @Test
    fun `a non-number or a missing number is a 400`() {
        assertEquals(400, rejection("/delay?ms=soon").first)
        assertEquals(400, rejection("/delay?ms=1.5").first)
        assertEquals(400 to "query parameter 'ms' is required: a whole number from 0 to 1000", rejection("/delay"))
    }

    @Test
    fun `dashboard takes one safe user id`() {
        assertEquals(Endpoint.Dashboard("user-42_x"), route("/dashboard/user-42_x"))
        assertEquals(400, rejection("/dashboard/a%20b").first)
        assertEquals(400, rejection("/dashboard/" + "x".repeat(65)).first)
        assertEquals(404, rejection("/dashboard/").first)
        assertEquals(404, rejection("/dashboard/a/b").first)
    }

    @Test
    fun `pin traps are known by slug, with a default block time`() {
        assertEquals(Endpoint.Pin(PinTrap.LAZY, PinTrap.DEFAULT_BLOCK_MS), route("/pin/lazy"))
        assertEquals(Endpoint.Pin(PinTrap.CLASS_INIT, 5), route("/pin/class-init?ms=5"))
        assertEquals(
            404 to
                "unknown pinning trap 'volatile'; known traps: synchronized, lazy, class-init, native, synchronized-fixed, lazy-fixed, class-init-fixed, native-fixed",
            rejection("/pin/volatile"),
        )
        assertEquals(400, rejection("/pin/native?ms=x").first)
    }

    @Test
    fun `unknown paths are a 404 and other methods on known paths a 405`() {
        assertEquals(404, rejection("/nope").first)
        assertEquals(404, rejection("/json/extra").first)
        assertEquals(404, rejection("/").first)
        assertEquals(405 to "/json only answers GET, not POST", rejection("/json", method = "POST"))
        assertEquals(404, rejection("/nope", method = "POST").first)
    }

    @Test
    fun `a method it does not recognize is a 501 on any path, and methods are case-sensitive`() {
        assertEquals(501, rejection("/json", method = "BREW").first)
        assertEquals(501, rejection("/nope", method = "BREW").first)
        assertEquals(501, rejection("/json", method = "get").first)
        assertEquals(405, rejection("/json", method = "PATCH").first)
    }
}
