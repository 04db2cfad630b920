package lab.bench.load

import java.io.ByteArrayOutputStream
import java.io.IOException
import java.net.StandardProtocolFamily
import java.net.UnixDomainSocketAddress
import java.nio.ByteBuffer
import java.nio.channels.SocketChannel
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.atomic.AtomicReference

/**
 * HTTP/1.1 over a Unix socket, one request per connection, read to its end. A k6 on a load
 * generator is reached through a socket file that SSH forwards to its API, so the harness opens
 * no local port for it (a port chosen free and bound later by SSH could be taken in between);
 * the JDK's HTTP client speaks only TCP.
 */
object UnixSocketHttp {
    data class Answer(val status: Int, val body: String)

    /** Sends one request to the server behind [socket]; its whole answer within [timeout], or an [IOException]. */
    fun exchange(socket: Path, method: String, target: String, body: String? = null, timeout: Duration): Answer {
        val bytes = body?.toByteArray() ?: ByteArray(0)
        val request = buildString {
            append("$method $target HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n")
            if (body != null) append("Content-Type: application/json\r\nContent-Length: ${bytes.size}\r\n")
            append("\r\n")
        }.toByteArray(Charsets.US_ASCII) + bytes
        SocketChannel.open(StandardProtocolFamily.UNIX).use { channel ->
            val outcome = AtomicReference<Result<Answer>>()
            val talker = Thread.ofVirtual().name("unix-http").start {
                outcome.set(runCatching { talk(channel, socket, request) })
            }
            if (!talker.join(timeout)) {
                channel.close() // ends the blocked read
                talker.join()
                throw IOException("$method $target on $socket: no whole answer within ${timeout.toMillis()} ms")
            }
            return outcome.get().getOrElse { throw it as? IOException ?: IOException("$method $target on $socket", it) }
        }
    }

    private fun talk(channel: SocketChannel, socket: Path, request: ByteArray): Answer {
        channel.connect(UnixDomainSocketAddress.of(socket))
        val out = ByteBuffer.wrap(request)
        while (out.hasRemaining()) channel.write(out)
        val received = ByteArrayOutputStream()
        val buffer = ByteBuffer.allocate(8192)
        while (channel.read(buffer.clear()) >= 0) received.write(buffer.array(), 0, buffer.position())
        return parse(received.toByteArray())
    }

    /** An HTTP/1.1 response read to the connection's end: its body by Content-Length, by chunks, or to the end. */
    internal fun parse(response: ByteArray): Answer {
        val text = response.toString(Charsets.ISO_8859_1)
        val headEnd = text.indexOf("\r\n\r\n")
        if (headEnd < 0) throw IOException("the answer ended inside its head (${response.size} bytes)")
        val lines = text.substring(0, headEnd).split("\r\n")
        val status = lines.first().split(' ').getOrNull(1)?.toIntOrNull() ?: throw IOException("not a status line: ${lines.first()}")
        val headers = lines.drop(1).associate { it.substringBefore(':').trim().lowercase() to it.substringAfter(':').trim() }
        val rest = text.substring(headEnd + 4)
        val body = when {
            headers["transfer-encoding"]?.contains("chunked", ignoreCase = true) == true -> dechunk(rest)
            headers["content-length"] != null -> {
                val length = headers.getValue("content-length").toInt()
                if (rest.length < length) throw IOException("the body ended after ${rest.length} of its $length bytes")
                rest.take(length)
            }
            else -> rest
        }
        return Answer(status, body.toByteArray(Charsets.ISO_8859_1).toString(Charsets.UTF_8))
    }

    private fun dechunk(chunked: String): String {
        val body = StringBuilder()
        var at = 0
        while (true) {
            val lineEnd = chunked.indexOf("\r\n", at)
            if (lineEnd < 0) throw IOException("the chunked body ended before its last chunk")
            val size = chunked.substring(at, lineEnd).substringBefore(';').trim().toInt(16)
            if (size == 0) return body.toString()
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size)
            at = lineEnd + 2 + size + 2
        }
    }
}
