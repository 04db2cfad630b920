package lab.handlers

import java.lang.ref.Reference
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * One open WebSocket, from the moment its task starts serving it until it [close]s: it counts
 * in `/stats`'s `openSockets` and holds the server's [SocketBallast] for that long. A server
 * takes one from [LiveCounters.openSocket] in its socket's task, keeps it for the task's
 * life, and closes it when the task ends, so every server counts and holds sockets alike:
 *
 * ```
 * counters.openSocket().use {
 *     while (true) { /* wait for the next frame and echo it */ }
 * }
 * ```
 */
class OpenSocket internal constructor(private val openSockets: AtomicInteger, ballast: SocketBallast) : AutoCloseable {
    private val closed = AtomicBoolean()

    @Volatile
    private var held: Any? = ballast.allocate()

    init {
        openSockets.incrementAndGet()
    }

    /** Ends the socket's count and lets its ballast go; a second call does nothing. */
    override fun close() {
        if (!closed.compareAndSet(false, true)) return
        // The ballast is never read; without the fence, a compiled task could let it be
        // collected while the socket is still open, and the known truth would not hold.
        Reference.reachabilityFence(held)
        held = null
        openSockets.decrementAndGet()
    }
}
