package lab.jetty

import org.eclipse.jetty.io.SocketChannelEndPoint
import org.eclipse.jetty.server.Request
import java.nio.channels.ClosedChannelException
import java.nio.channels.SelectionKey
import java.nio.channels.Selector
import java.util.concurrent.ConcurrentLinkedQueue

/**
 * One platform thread per Jetty server, with a selector of its own, that notices when the client
 * of a waiting `/dashboard` closes its connection, and costs nothing while nobody leaves.
 *
 * Jetty (12.1, HTTP/1.1) stops reading a connection while its request is handled, so it learns
 * that the client left only when it writes the response; `Request.addFailureListener` never fires
 * for a GET whose client hangs up mid-handling. Netty, under Ktor, keeps reading and sees it at
 * once. To give the Jetty servers the same behaviour, each waiting request's socket is also
 * registered here for reading: a channel may be registered with several selectors, and Jetty's
 * own key asks for nothing meanwhile, so the two never race for a byte.
 *
 * An earlier version had each waiting request read its socket every 25 ms instead. That woke
 * every waiting thread 40 times a second, and at thousands of dashboards in flight on virtual
 * threads most of the server's CPU samples were that poll (docs/JOURNAL.md, "What the first
 * sweeps measured"): a cost of the lab, not of the model. Here a request costs one registration and one cancellation, whatever it waits.
 *
 * Every change to the selector's keys happens on its own thread, in the order asked, so a kept-alive
 * connection whose next request is watched before the last one's key is gone still works.
 */
internal class DisconnectWatcher : AutoCloseable {
    private val selector = Selector.open()
    private val changes = ConcurrentLinkedQueue<Runnable>()

    @Volatile private var open = true
    private val thread = Thread(::watchUntilClosed, "jetty-disconnect-watch").apply {
        isDaemon = true
        start()
    }

    /** A watch over [request]'s connection, not yet started: see [ClientDisconnectWatch.unlessClientLeaves]. */
    fun watchFor(request: Request): ClientDisconnectWatch =
        ClientDisconnectWatch(this, (request.connectionMetaData.connection.endPoint as? SocketChannelEndPoint)?.channel)

    internal fun start(watch: ClientDisconnectWatch) = change { register(watch) }

    internal fun stop(watch: ClientDisconnectWatch) = change { watch.key?.cancel() }

    private fun change(change: Runnable) {
        changes.add(change)
        selector.wakeup()
    }

    private fun watchUntilClosed() {
        while (open) {
            try {
                // Blocks until a watched socket is readable or a change is queued; cancelled keys leave here, so a socket Jetty closed is released at once.
                selector.select()
                handleReadable()
                generateSequence { changes.poll() }.forEach { it.run() }
            } catch (e: Exception) {
                // One request's trouble (a socket closed under it, a failing abort) must not end the watch of all the others.
                if (open) System.err.println("disconnect watch: $e")
            }
        }
    }

    private fun register(watch: ClientDisconnectWatch) {
        val channel = watch.channel ?: return
        if (!watch.isWatching || !channel.isOpen) return
        // A key of this connection's last request may still be cancelled but not yet gone: let it go first.
        channel.keyFor(selector)?.let { stale ->
            stale.cancel()
            selector.selectNow()
            handleReadable()
        }
        watch.key = try {
            channel.register(selector, SelectionKey.OP_READ, watch)
        } catch (e: ClosedChannelException) {
            null // Jetty closed it: the request fails on its own.
        }
    }

    private fun handleReadable() {
        selector.selectedKeys().forEach { key ->
            val watch = key.attachment() as ClientDisconnectWatch
            if (!key.isValid || !watch.readableKeepsWatching()) key.cancel()
        }
        selector.selectedKeys().clear()
    }

    override fun close() {
        open = false
        selector.wakeup()
        thread.join(JOIN_MS)
        selector.close()
    }

    private companion object {
        const val JOIN_MS = 1_000L
    }
}
