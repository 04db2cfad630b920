package lab.conformance

import java.io.ByteArrayOutputStream
import java.io.DataInputStream
import java.io.EOFException
import java.net.Socket
import java.net.SocketTimeoutException
import java.net.URI
import java.nio.ByteBuffer
import kotlin.random.Random

/**
 * A client that writes whatever bytes a case needs, right or wrong, on a plain TCP socket, and
 * reads what comes back as it is: the protocol-abuse cases cannot be sent by a client that
 * keeps the rules, such as the JDK's.
 */
class RawWire(base: URI, private val readTimeoutMs: Int = 2_000) : AutoCloseable {
    private val socket = Socket(base.host, base.port).apply { soTimeout = readTimeoutMs }
    private val input = DataInputStream(socket.getInputStream().buffered())
    private val output = socket.getOutputStream()

    fun write(bytes: ByteArray) {
        output.write(bytes)
        output.flush()
    }

    fun write(text: String) = write(text.toByteArray(Charsets.ISO_8859_1))

    /** Half-closes: the server reads the end of the request stream. */
    fun endOutput() = socket.shutdownOutput()

    /** An HTTP response's status line and headers, or why none came. */
    sealed interface Reply {
        data class Head(val status: Int, val headers: Map<String, String>) : Reply

        /** The server closed the connection without a response. */
        data object Closed : Reply

        /** Nothing came within the read timeout, and the connection is still open. */
        data object Silent : Reply
    }

    /** Reads one response head; its body, if any, is read by [skipBody] or left. */
    fun readHead(): Reply {
        val lines = mutableListOf<String>()
        try {
            while (true) {
                val line = readLine() ?: return if (lines.isEmpty()) Reply.Closed else error("the head ended mid-way: $lines")
                if (line.isEmpty()) break
                lines += line
            }
        } catch (e: SocketTimeoutException) {
            if (lines.isEmpty()) return Reply.Silent
            throw e
        }
        val status = lines.first().split(' ').getOrNull(1)?.toIntOrNull() ?: error("not a status line: ${lines.first()}")
        val headers = lines.drop(1).associate { it.substringBefore(':').trim().lowercase() to it.substringAfter(':').trim() }
        return Reply.Head(status, headers)
    }

    /** The next byte the server sent, or -1 once it has closed the connection. */
    fun readByte(): Int = input.read()

    /** Reads the body a [head] announced with Content-Length, so the next response can be read. */
    fun skipBody(head: Reply.Head): ByteArray = ByteArray(head.headers["content-length"]?.toInt() ?: 0).also { input.readFully(it) }

    private fun readLine(): String? {
        val line = ByteArrayOutputStream()
        while (true) {
            val b = input.read()
            if (b < 0) return if (line.size() == 0) null else line.toString(Charsets.ISO_8859_1)
            if (b == '\n'.code) return line.toString(Charsets.ISO_8859_1).removeSuffix("\r")
            line.write(b)
        }
    }

    /** A WebSocket frame as it goes on the wire ([RFC 6455, 5.2](https://www.rfc-editor.org/rfc/rfc6455#section-5.2)). */
    data class Frame(val opcode: Int, val payload: ByteArray = ByteArray(0), val fin: Boolean = true, val rsv: Int = 0) {
        val text: String get() = payload.toString(Charsets.UTF_8)

        /** A close frame's code; -1 for a close frame without one. */
        val closeCode: Int get() = if (payload.size >= 2) ByteBuffer.wrap(payload).short.toInt() and 0xFFFF else -1

        override fun equals(other: Any?) =
            other is Frame && opcode == other.opcode && payload.contentEquals(other.payload) && fin == other.fin && rsv == other.rsv

        override fun hashCode() = opcode * 31 + payload.contentHashCode()

        override fun toString() =
            "Frame(opcode=$opcode, fin=$fin, rsv=$rsv, ${payload.size} bytes" + (if (opcode == CLOSE) ", code $closeCode)" else ")")

        companion object {
            const val CONTINUATION = 0x0
            const val TEXT = 0x1
            const val BINARY = 0x2
            const val CLOSE = 0x8
            const val PING = 0x9
            const val PONG = 0xA

            fun text(text: String, fin: Boolean = true) = Frame(TEXT, text.toByteArray(), fin)

            fun close(code: Int, reason: ByteArray = ByteArray(0)) =
                Frame(CLOSE, ByteBuffer.allocate(2 + reason.size).putShort(code.toShort()).put(reason).array())
        }
    }

    /** Writes [frame], masked as a client must unless [masked] is false. */
    fun send(frame: Frame, masked: Boolean = true) {
        val out = ByteArrayOutputStream()
        out.write((if (frame.fin) 0x80 else 0) or (frame.rsv shl 4) or frame.opcode)
        val maskBit = if (masked) 0x80 else 0
        val size = frame.payload.size
        when {
            size < 126 -> out.write(maskBit or size)
            size <= 0xFFFF -> out.write(byteArrayOf((maskBit or 126).toByte(), (size shr 8).toByte(), size.toByte()))
            else -> out.write(ByteBuffer.allocate(9).put((maskBit or 127).toByte()).putLong(size.toLong()).array())
        }
        if (masked) {
            val mask = Random.nextBytes(4)
            out.write(mask)
            out.write(ByteArray(size) { (frame.payload[it].toInt() xor mask[it % 4].toInt()).toByte() })
        } else {
            out.write(frame.payload)
        }
        write(out.toByteArray())
    }

    /** What came back on a WebSocket: a frame, or the end of the connection, or nothing yet. */
    sealed interface Received {
        data class Got(val frame: Frame) : Received

        /** The server closed the TCP connection (or reset it). */
        data object Dropped : Received

        /** Nothing within the read timeout; the connection is open. */
        data object Silent : Received
    }

    fun receive(): Received = try {
        val first = input.readUnsignedByte()
        val second = input.readUnsignedByte()
        val size = when (val short = second and 0x7F) {
            126 -> input.readUnsignedShort().toLong()
            127 -> input.readLong()
            else -> short.toLong()
        }
        val mask = if (second and 0x80 != 0) ByteArray(4).also { input.readFully(it) } else null
        val payload = ByteArray(size.toInt()).also { input.readFully(it) }
        mask?.let { m -> payload.indices.forEach { payload[it] = (payload[it].toInt() xor m[it % 4].toInt()).toByte() } }
        Received.Got(Frame(first and 0x0F, payload, fin = first and 0x80 != 0, rsv = (first shr 4) and 0x7))
    } catch (e: SocketTimeoutException) {
        Received.Silent
    } catch (e: EOFException) {
        Received.Dropped
    } catch (e: java.net.SocketException) {
        Received.Dropped
    }

    override fun close() = socket.close()

    companion object {
        /** An upgrade request to /ws, with [headers] as given: the cases leave out or change what they need to. */
        fun upgrade(base: URI, headers: Map<String, String> = HANDSHAKE): String =
            "GET /ws HTTP/1.1\r\nHost: ${base.host}:${base.port}\r\n" +
                headers.entries.joinToString("") { "${it.key}: ${it.value}\r\n" } + "\r\n"

        val HANDSHAKE = linkedMapOf(
            "Upgrade" to "websocket",
            "Connection" to "Upgrade",
            "Sec-WebSocket-Key" to "dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version" to "13",
        )

        /** A WebSocket on /ws after a proper handshake, for the frame cases. */
        fun webSocket(base: URI): RawWire {
            val wire = RawWire(base)
            wire.write(upgrade(base))
            val head = wire.readHead()
            check(head is Reply.Head && head.status == 101) { "the handshake failed: $head" }
            return wire
        }
    }
}
