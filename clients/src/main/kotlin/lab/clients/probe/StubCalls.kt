package lab.clients.probe

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import java.net.InetSocketAddress
import java.net.Socket
import java.net.URI

/**
 * The stub's counts of calls started and finished, read over a bare socket on the calling
 * thread: any HTTP client would start threads of its own in the middle of a census.
 */
data class StubCalls(val started: Long, val finished: Long) {
    operator fun minus(earlier: StubCalls) = StubCalls(started - earlier.started, finished - earlier.finished)

    companion object {
        /** Reads `/stats`; throws [StubUnreachable] when the stub does not answer. */
        fun read(stubUrl: String): StubCalls {
            val uri = URI(stubUrl)
            val body = try {
                Socket().use { socket ->
                    socket.connect(InetSocketAddress(uri.host, uri.port), 2_000)
                    socket.soTimeout = 5_000
                    socket.getOutputStream()
                        .write("GET /stats HTTP/1.1\r\nHost: ${uri.host}\r\nConnection: close\r\n\r\n".toByteArray())
                    socket.getInputStream().readAllBytes().decodeToString().substringAfter("\r\n\r\n")
                }
            } catch (e: java.io.IOException) {
                throw StubUnreachable(
                    "the stub at $stubUrl does not answer (${e.message}); start it with `make stub`, or leave STUB (--stub) out for a stub of the run's own",
                )
            }
            val stats = runCatching { Json.parseToJsonElement(body).jsonObject }
                .getOrElse { throw StubUnreachable("$stubUrl/stats is not the lab's stub (answered: ${body.take(80)})") }
            return StubCalls(stats.getValue("started").jsonPrimitive.long, stats.getValue("finished").jsonPrimitive.long)
        }
    }
}

/** The downstream stub cannot be reached or is not the lab's stub. */
class StubUnreachable(message: String) : Exception(message)
