package lab.io

import java.io.Closeable
import java.net.InetAddress
import java.net.InetSocketAddress
import java.nio.ByteBuffer
import java.nio.channels.ClosedChannelException
import java.nio.channels.ServerSocketChannel
import java.nio.channels.SocketChannel
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * The far end of every socket write: a loopback server that reads and discards, and counts each connection's
 * bytes so a write can be checked for having delivered all of them.
 *
 * A write is only done when its bytes have arrived: closing a socket returns while the kernel still holds
 * unsent data. So each benchmark op ends with [awaitExactly], which waits until the drain has seen the
 * connection's end of stream, and fails unless it counted exactly the bytes written. Connections are told
 * apart by the writer's local port, which the writer knows and the drain sees as the remote port.
 *
 * One platform thread accepts and drains connections one after another, with one reused buffer, so the drain
 * allocates next to nothing per connection (its allocations land in every socket benchmark's
 * `gc.alloc.rate.norm` alike). The benchmark ops run one at a time, so one thread is enough. It binds to
 * [HOST] only, on a port the system picks.
 */
class LoopbackDrain : Closeable {
    private val server: ServerSocketChannel = ServerSocketChannel.open().bind(InetSocketAddress(InetAddress.getByName(HOST), 0))

    /** The port writers connect to, on [HOST]. */
    val port: Int = (server.localAddress as InetSocketAddress).port

    private val countsByClientPort = ConcurrentHashMap<Int, CompletableFuture<Long>>()
    private val buffer: ByteBuffer = ByteBuffer.allocateDirect(Chunks.SIZE_BYTES)
    private val thread: Thread = Thread.ofPlatform().name("loopback-drain").daemon().start(::acceptAndDrain)

    /**
     * Waits until the connection from [clientPort] has ended and returns its byte count, or throws unless
     * that count is [expectedBytes]. Waits at most [AWAIT_SECONDS], so a write that never ends fails the op.
     */
    fun awaitExactly(
        clientPort: Int,
        expectedBytes: Long,
    ): Long {
        val countedBytes =
            try {
                countFor(clientPort).get(AWAIT_SECONDS, TimeUnit.SECONDS)
            } catch (e: TimeoutException) {
                throw IllegalStateException("the drain saw no end of stream from port $clientPort within $AWAIT_SECONDS s", e)
            } catch (e: ExecutionException) {
                throw IllegalStateException("the drain failed reading from port $clientPort: ${e.cause}", e.cause)
            } finally {
                countsByClientPort.remove(clientPort)
            }
        check(countedBytes == expectedBytes) { "the drain counted $countedBytes bytes from port $clientPort, expected $expectedBytes" }
        return countedBytes
    }

    override fun close() {
        server.close()
        thread.join(TimeUnit.SECONDS.toMillis(AWAIT_SECONDS))
    }

    private fun countFor(clientPort: Int): CompletableFuture<Long> = countsByClientPort.computeIfAbsent(clientPort) { CompletableFuture() }

    private fun acceptAndDrain() {
        while (true) {
            val connection =
                try {
                    server.accept()
                } catch (e: ClosedChannelException) {
                    return // close() was called: the trial is over.
                }
            val clientPort = (connection.remoteAddress as InetSocketAddress).port
            // Closed before the count is published, so the next op never overlaps this connection's close.
            val outcome = runCatching { connection.use(::drain) }
            outcome.fold({ countFor(clientPort).complete(it) }, { countFor(clientPort).completeExceptionally(it) })
        }
    }

    private fun drain(connection: SocketChannel): Long {
        var countedBytes = 0L
        while (true) {
            buffer.clear()
            val readBytes = connection.read(buffer)
            if (readBytes < 0) return countedBytes
            countedBytes += readBytes
        }
    }

    companion object {
        /** Loopback by address, not by name, so no lookup and no IPv6 surprise decides where bytes go. */
        const val HOST: String = "127.0.0.1"

        /** Longer than any healthy 128 MiB write on loopback by two orders of magnitude. */
        const val AWAIT_SECONDS: Long = 60
    }
}
