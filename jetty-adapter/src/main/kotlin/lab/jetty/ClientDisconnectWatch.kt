package lab.jetty

import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import java.io.IOException
import java.nio.ByteBuffer
import java.nio.channels.SelectionKey
import java.nio.channels.SocketChannel
import kotlin.coroutines.cancellation.CancellationException

/**
 * Whether the client of one request has closed its connection while the request waits, told by
 * the server's [DisconnectWatcher] as soon as the socket reads end-of-stream, with no polling.
 *
 * A client that pipelines a second request behind this one would have a byte of it consumed by
 * the watch; the watch then stops, and the response closes the connection ([sawPipelinedBytes]),
 * which RFC 9112 tells pipelining clients to expect and to retry after. k6, wrk and browsers do not pipeline.
 */
internal class ClientDisconnectWatch(private val watcher: DisconnectWatcher, internal val channel: SocketChannel?) {
    private val probe = ByteBuffer.allocate(1)
    private var onLeave: () -> Unit = {}

    /** This watch's registration with the watcher's selector; touched only on the watcher's thread. */
    internal var key: SelectionKey? = null

    // Guarded by this watch: once stopped, the watcher never reads the socket again, so no byte of the next request is taken.
    internal var isWatching = false
        private set

    @Volatile var clientLeft = false
        private set

    @Volatile var sawPipelinedBytes = false
        private set

    /**
     * Runs [wait] to its end; if the client leaves first, runs [stopWaiting], which must end
     * [wait] (by aborting what it waits on), and returns null. The thread models' form.
     */
    fun <T : Any> unlessClientLeaves(stopWaiting: () -> Unit, wait: () -> T): T? {
        start(stopWaiting)
        try {
            return wait()
        } catch (e: Exception) {
            if (clientLeft) return null
            throw e
        } finally {
            stop()
        }
    }

    /** Runs [work] to its end, unless the client leaves first: then cancels it and returns null. The coroutine model's form. */
    suspend fun <T : Any> unlessClientLeaves(work: suspend () -> T): T? = coroutineScope {
        val answer = async { work() }
        start { answer.cancel() }
        try {
            answer.await()
        } catch (e: CancellationException) {
            if (!clientLeft) throw e
            null
        } finally {
            stop()
        }
    }

    private fun start(stopWaiting: () -> Unit) {
        if (channel == null) return
        synchronized(this) {
            onLeave = stopWaiting
            isWatching = true
        }
        watcher.start(this)
    }

    private fun stop() {
        synchronized(this) { isWatching = false }
        watcher.stop(this)
    }

    /** On the watcher's thread, when the socket is readable: whether to go on watching. */
    internal fun readableKeepsWatching(): Boolean {
        val leave = synchronized(this) {
            if (!isWatching) return false
            probe.clear()
            val read = try {
                channel!!.read(probe)
            } catch (e: IOException) {
                -1
            }
            if (read == 0) return true
            if (read > 0) sawPipelinedBytes = true else clientLeft = true
            isWatching = false
            onLeave.takeIf { clientLeft }
        }
        leave?.invoke()
        return false
    }
}
