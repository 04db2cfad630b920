package lab.stub

import lab.handlers.LabJson
import java.io.BufferedReader
import java.io.InputStreamReader
import java.net.Socket
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals

/**
 * What the stub counts, on a real stub over real sockets: calls started and finished, and each connection that carried a
 * call once, however many calls it carried. A connection that asked only for `/stats` is not one of them.
 */
class StubCountersTest {
    private val stub = StubServer("127.0.0.1", 0, latencyMs = 1)
    private val port = stub.start()

    @AfterTest
    fun stop() = stub.close()

    @Test
    fun `a kept connection is counted once, at its first call, and every call on it is`() {
        Socket("127.0.0.1", port).use { kept ->
            repeat(3) { assertEquals(200, call(kept, "/profile/$it")) }
        }
        Socket("127.0.0.1", port).use { assertEquals(200, call(it, "/metrics/7")) }
        val stats = stats()
        assertEquals(StubStats(started = 4, finished = 4, cancelled = 0, connections = 2), stats)
    }

    @Test
    fun `a connection that only asks for stats carries no call`() {
        repeat(3) { stats() }
        assertEquals(0, stats().connections)
    }

    private fun stats(): StubStats = Socket("127.0.0.1", port).use { socket ->
        LabJson.decode(body(socket, "/stats").second)
    }

    private fun call(socket: Socket, path: String): Int = body(socket, path).first

    /** One request on [socket], kept alive: the answer's status and body. */
    private fun body(socket: Socket, path: String): Pair<Int, String> {
        socket.getOutputStream().apply {
            write("GET $path HTTP/1.1\r\nHost: stub\r\n\r\n".toByteArray())
            flush()
        }
        val reader = BufferedReader(InputStreamReader(socket.getInputStream(), Charsets.UTF_8))
        val status = reader.readLine().split(' ')[1].toInt()
        var length = 0
        while (true) {
            val line = reader.readLine()
            if (line.isEmpty()) break
            if (line.lowercase().startsWith("content-length:")) length = line.substringAfter(':').trim().toInt()
        }
        val body = CharArray(length)
        var read = 0
        while (read < length) read += reader.read(body, read, length - read)
        return status to String(body)
    }
}
