package lab.verify

import java.net.URI
import java.net.http.HttpClient
import java.net.http.WebSocket
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.concurrent.TimeUnit

/**
 * Verify before measuring, as TechEmpower does: before any load, a server must answer every
 * request of [ContractCases] exactly (status, content type, body) and echo a WebSocket message.
 * A server that does not is not measured; its run is failed with the first case it broke.
 *
 * The pinning traps are left out: they are no request path under measurement (the conformance
 * suite and `make audit-pinning` hold them to the contract), and springing one here would
 * change what the run's own pinning figures see (a class initializer runs once a JVM).
 */
object ContractCheck {
    /** Every case a run checks: the contract's good and bad requests but the pinning traps. */
    val cases: List<ContractCases.Case> = (ContractCases.good + ContractCases.bad).filterNot { it.target.startsWith("/pin/") }

    /** The first way the server at [base] breaks the contract, in one sentence; null when it keeps it. */
    fun firstBreach(base: URI): String? {
        // A client of its own for each server, shut down at once after (close() would wait for an exchange Answer.of gave up
        // on): nothing of one pass's client is left to the next.
        val http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build()
        try {
            return cases.firstNotNullOfOrNull { case ->
                val answer = Answer.of(http, base, case.target, case.method)
                if (answer != case.expected) "answered $case with $answer; the contract says ${case.expected}" else null
            } ?: echoBreach(http, base)
        } finally {
            http.shutdownNow()
        }
    }

    private fun echoBreach(http: HttpClient, base: URI): String? {
        val echoed = CompletableFuture<String>()
        val listener = object : WebSocket.Listener {
            private val text = StringBuilder()

            override fun onText(webSocket: WebSocket, data: CharSequence, last: Boolean): CompletionStage<*>? {
                text.append(data)
                if (last) echoed.complete(text.toString())
                webSocket.request(1)
                return null
            }
        }
        val socket = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
            .buildAsync(URI("ws://${base.host}:${base.port}/ws"), listener).get(30, TimeUnit.SECONDS)
        try {
            socket.sendText(ECHO, true).get(10, TimeUnit.SECONDS)
            val answer = runCatching { echoed.get(10, TimeUnit.SECONDS) }.getOrNull()
            return if (answer == ECHO) null else "echoed '$answer' to the WebSocket message '$ECHO'"
        } finally {
            socket.abort()
        }
    }

    private const val ECHO = "verify before measuring"
}
