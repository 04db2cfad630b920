package lab.bench.load

import java.io.IOException
import java.net.StandardProtocolFamily
import java.net.UnixDomainSocketAddress
import java.nio.ByteBuffer
import java.nio.channels.ServerSocketChannel
import java.nio.channels.SocketChannel
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.atomic.AtomicReference
import kotlin.concurrent.thread
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class UnixSocketHttpTest {
    @Test
    fun `a chunked answer is joined from its chunks`() = withServer({
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n"
    }) { socket ->
        assertEquals(
            UnixSocketHttp.Answer(200, "hello, world"),
            UnixSocketHttp.exchange(socket, "GET", "/v1/status", timeout = Duration.ofSeconds(5)),
        )
    }

    @Test
    fun `an answer cut off in its body is an IOException`() = withServer({
        "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"a\""
    }) { socket ->
        assertFailsWith<IOException> { UnixSocketHttp.exchange(socket, "GET", "/v1/status", timeout = Duration.ofSeconds(5)) }
    }

    @Test
    fun `a request goes over the socket file and its answer comes back`() {
        val received = AtomicReference<String>()
        withServer({ request ->
            received.set(request)
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        }) { socket ->
            assertEquals(
                UnixSocketHttp.Answer(200, "ok"),
                UnixSocketHttp.exchange(socket, "PATCH", "/v1/status", "{}", Duration.ofSeconds(5)),
            )
        }
        assertTrue(received.get().startsWith("PATCH /v1/status HTTP/1.1\r\n"), received.get())
        assertTrue("\r\nConnection: close\r\n" in received.get(), "one connection a request: ${received.get()}")
        assertTrue("\r\nContent-Length: 2\r\n" in received.get() && received.get().endsWith("\r\n\r\n{}"), received.get())
    }

    @Test
    fun `a server that never answers costs the timeout, then an IOException`() = withServer({
        Thread.sleep(10_000)
        ""
    }) { socket ->
        val began = System.nanoTime()
        assertFailsWith<IOException> { UnixSocketHttp.exchange(socket, "GET", "/v1/status", timeout = Duration.ofMillis(300)) }
        assertTrue(System.nanoTime() - began < Duration.ofSeconds(5).toNanos())
    }

    /** A one-connection HTTP server on a socket file: reads a whole request, and writes what [answer] makes of it. */
    private fun withServer(answer: (String) -> String, client: (Path) -> Unit) {
        val dir = Files.createTempDirectory("unix-http-")
        val socket = dir.resolve("api.sock")
        try {
            ServerSocketChannel.open(StandardProtocolFamily.UNIX).use { server ->
                server.bind(UnixDomainSocketAddress.of(socket))
                val serving = thread(isDaemon = true) {
                    runCatching { server.accept().use { it.write(ByteBuffer.wrap(answer(readRequest(it)).toByteArray())) } }
                }
                client(socket)
                serving.interrupt()
            }
        } finally {
            dir.toFile().deleteRecursively()
        }
    }

    private fun readRequest(channel: SocketChannel): String {
        val text = StringBuilder()
        val buffer = ByteBuffer.allocate(4096)
        fun whole(): Boolean {
            val headEnd = text.indexOf("\r\n\r\n").takeIf { it >= 0 } ?: return false
            val length = Regex("Content-Length: (\\d+)").find(text)?.groupValues?.get(1)?.toInt() ?: 0
            return text.length >= headEnd + 4 + length
        }
        while (!whole() && channel.read(buffer.clear()) >= 0) text.append(String(buffer.array(), 0, buffer.position()))
        return text.toString()
    }
}
