package lab.io

import io.ktor.network.selector.SelectorManager
import io.ktor.network.sockets.InetSocketAddress
import io.ktor.network.sockets.aSocket
import io.ktor.network.sockets.openWriteChannel
import io.ktor.utils.io.writeFully
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking

/**
 * A bulk write through a Ktor raw TCP socket (ktor-network): the API the 2021 article measured at 675 ms for
 * 128 MiB against 88 ms for a JVM `Socket` (on Ktor 1.x).
 *
 * Written in Kotlin because the API is a suspend one; the JMH benchmark, in Java, calls [writeAll] and the
 * `runBlocking` here parks the benchmark thread. The channel is opened with `autoFlush = false`, the setting
 * for bulk transfers: data leaves in large batches, and one `flushAndClose()` at the end sends the rest.
 */
object KtorSocketWrite {
    /**
     * The selector every connection of a trial shares, as an application would share one; creating it per
     * write would add a selector thread's start-up to each measurement.
     */
    @JvmStatic
    fun newSelector(): SelectorManager = SelectorManager(Dispatchers.IO)

    /**
     * Connects to [host]:[port], writes [sizeBytes] bytes as [chunk]s (the last one cut short if need be),
     * flushes, closes, and returns the connection's local port so the caller can ask the drain what arrived.
     */
    @JvmStatic
    fun writeAll(
        selector: SelectorManager,
        host: String,
        port: Int,
        chunk: ByteArray,
        sizeBytes: Long,
    ): Int =
        runBlocking {
            aSocket(selector).tcp().connect(host, port).use { socket ->
                val localPort = (socket.localAddress as InetSocketAddress).port
                val output = socket.openWriteChannel(autoFlush = false)
                var remainingBytes = sizeBytes
                while (remainingBytes > 0) {
                    val lengthBytes = minOf(chunk.size.toLong(), remainingBytes).toInt()
                    output.writeFully(chunk, 0, lengthBytes)
                    remainingBytes -= lengthBytes
                }
                output.flushAndClose()
                localPort
            }
        }
}
