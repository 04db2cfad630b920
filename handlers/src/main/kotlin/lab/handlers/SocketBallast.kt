package lab.handlers

import java.nio.ByteBuffer

/**
 * What every open WebSocket holds on purpose: a known truth for the memory pipeline. A server
 * started with [bytes] = K keeps exactly K more bytes for each open socket than one started with
 * K = 0, so a measurement that does not find K more per socket is wrong, whatever else the
 * engine and the model hold. The default, K = 0, holds nothing and allocates nothing.
 *
 * [Kind.HEAP] is a `ByteArray(K)` (its 16-byte header aside), which the live heap must show;
 * [Kind.DIRECT] is a direct ByteBuffer of K bytes, which only the native side shows (NMT's
 * Other category and the RSS), not the heap.
 */
data class SocketBallast(val bytes: Int = 0, val kind: Kind = Kind.HEAP) {
    init {
        require(bytes >= 0) { "a socket's ballast is 0 bytes or more, not $bytes" }
    }

    /** Where the ballast lives; [slug] is how the servers' `--socket-ballast` option names it. */
    enum class Kind(val slug: String) {
        HEAP("heap"),
        DIRECT("direct"),
    }

    /** A new ballast of [bytes] for one socket to hold until it closes; null when there is none. */
    fun allocate(): Any? = when {
        bytes == 0 -> null
        kind == Kind.HEAP -> ByteArray(bytes)
        else -> ByteBuffer.allocateDirect(bytes).also(::touchEveryPage)
    }

    /**
     * Writes a byte into each page, so the buffer is resident and counts in the RSS as it does in
     * NMT. The JDK zeroes a new direct buffer today, which touches the pages too; this does not
     * rely on that. 4 KiB is the smallest page size: a larger page is touched several times.
     */
    private fun touchEveryPage(buffer: ByteBuffer) {
        for (offset in 0 until buffer.capacity() step SMALLEST_PAGE_BYTES) buffer.put(offset, 1)
        buffer.put(buffer.capacity() - 1, 1)
    }

    companion object {
        val NONE = SocketBallast()

        private const val SMALLEST_PAGE_BYTES = 4096
    }
}
