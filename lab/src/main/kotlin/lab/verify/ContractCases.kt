package lab.verify

import lab.handlers.ContentTypes
import lab.handlers.CpuWork
import lab.handlers.Dashboard
import lab.handlers.Endpoint
import lab.handlers.LabJson
import lab.handlers.Limits
import lab.handlers.PayloadBytes
import lab.handlers.PinTrap
import lab.handlers.Router
import lab.stub.StubAnswers
import java.net.URI

/**
 * The handler contract (docs/CONFORMANCE.md) as a table of requests and the exact answers to them.
 * Good answers are spelled out here; a bad input's answer is the core's own rejection, so the
 * servers are held to the one [Router] they all share. The conformance suite sends every case
 * to every server; `make bench` sends them ([ContractCheck]) before it loads a server.
 */
object ContractCases {
    data class Case(val method: String, val target: String, val expected: Answer) {
        override fun toString() = "$method $target"
    }

    private fun json(body: String) = Answer(200, ContentTypes.JSON, body.toByteArray())

    val good: List<Case> = listOf(
        Case("GET", "/health", Answer(200, ContentTypes.TEXT, "ok".toByteArray())),
        Case("GET", "/json", json("""{"message":"Hello, World!"}""")),
        Case("GET", "/delay?ms=0", json("""{"delayedMs":0}""")),
        Case("GET", "/delay?ms=30", json("""{"delayedMs":30}""")),
        Case("GET", "/cpu?iterations=1", json("""{"iterations":1,"sha256":"${CpuWork.digest(1)}"}""")),
        Case("GET", "/cpu?iterations=20000", json("""{"iterations":20000,"sha256":"${CpuWork.digest(20_000)}"}""")),
        Case("GET", "/bytes?size=0", Answer(200, ContentTypes.BYTES, ByteArray(0))),
        Case("GET", "/bytes?size=1000003", Answer(200, ContentTypes.BYTES, ByteArray(1_000_003) { PayloadBytes.byteAt(it.toLong()) })),
        Case("GET", "/pin/lazy", json("""{"trap":"lazy","blockedMs":${PinTrap.DEFAULT_BLOCK_MS}}""")),
    ) + PinTrap.entries.map { Case("GET", "/pin/${it.slug}?ms=5", json("""{"trap":"${it.slug}","blockedMs":5}""")) } +
        listOf("u1", "User_42", "a-b").map { userId ->
            val dashboard = Dashboard(userId, StubAnswers.profile(userId), StubAnswers.metrics(userId))
            Case("GET", "/dashboard/$userId", Answer(200, ContentTypes.JSON, LabJson.encode(dashboard)))
        }

    private val badTargets = listOf(
        "GET" to "/delay",
        "GET" to "/delay?ms=",
        "GET" to "/delay?ms=soon",
        "GET" to "/delay?ms=1.5",
        "GET" to "/delay?ms=-1",
        "GET" to "/delay?ms=60001",
        "GET" to "/delay?ms=99999999999999999999",
        "GET" to "/cpu?iterations=0",
        "GET" to "/cpu?iterations=5000001",
        "GET" to "/cpu?iterations=many",
        "GET" to "/bytes?size=-5",
        "GET" to "/bytes?size=big",
        "GET" to "/bytes?size=4294967297",
        "GET" to "/dashboard/not%20safe",
        "GET" to "/dashboard/" + "x".repeat(65),
        "GET" to "/dashboard/",
        "GET" to "/pin/volatile",
        "GET" to "/pin/lazy?ms=never",
        "GET" to "/pin/native?ms=60001",
        "GET" to "/nope",
        "GET" to "/",
        "GET" to "/json/extra",
        "GET" to "/ws",
        "POST" to "/json",
        "DELETE" to "/health",
        "PUT" to "/dashboard/u1",
    )

    val bad: List<Case> = badTargets.map { (method, target) -> Case(method, target, coreAnswer(method, target)) }

    /** What the shared core answers to a request it rejects. */
    private fun coreAnswer(method: String, target: String): Answer {
        val uri = URI("http://core$target")
        val query = uri.rawQuery.orEmpty().split('&').filter { it.isNotEmpty() }
            .associate { it.substringBefore('=') to it.substringAfter('=', "") }
        val reply = when (val endpoint = Router(Limits()).route(method, uri.rawPath, query::get)) {
            is Endpoint.Rejected -> endpoint.reply
            Endpoint.WebSocketWithoutUpgrade -> lab.handlers.Handlers.webSocketWithoutUpgrade()
            else -> error("$method $target is not a bad input for the core: $endpoint")
        }
        check(reply.status in 400..499) { "$method $target: a bad input must get a 4xx, the core gives ${reply.status}" }
        return Answer(reply.status, reply.contentType, reply.body)
    }
}
