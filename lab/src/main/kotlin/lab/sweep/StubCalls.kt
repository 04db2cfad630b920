package lab.sweep

import lab.handlers.LabJson
import lab.stub.StubStats
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

/**
 * The downstream calls the stub took, and the connections that carried them (its `/stats`): read before and after a step,
 * their difference says whether the server's client kept its connections to the stub or opened one for each call.
 */
data class StubCalls(val calls: Long, val connections: Long) {
    operator fun minus(before: StubCalls) = StubCalls(calls - before.calls, connections - before.connections)

    companion object {
        private val http: HttpClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

        /** The stub's counts now; null if it did not answer, and the step then records none. */
        fun read(stubUrl: String): StubCalls? = runCatching {
            val request = HttpRequest.newBuilder(URI("${stubUrl.trimEnd('/')}/stats")).timeout(Duration.ofSeconds(5)).build()
            val stats = LabJson.decode<StubStats>(http.send(request, HttpResponse.BodyHandlers.ofString()).body())
            StubCalls(stats.started, stats.connections)
        }.getOrNull()
    }
}
