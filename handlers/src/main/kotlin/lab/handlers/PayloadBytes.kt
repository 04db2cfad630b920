package lab.handlers

/**
 * The `/bytes` body: byte `i` of every payload is `i mod 251`. A prime period means no
 * chunk boundary or buffer size lines up with it, so a dropped or repeated chunk shows.
 */
object PayloadBytes {
    const val CHUNK_BYTES = 64 * 1024

    @PublishedApi internal const val PERIOD = 251

    // One chunk plus a period: any chunk of the payload is a slice of this, so streaming allocates nothing.
    @PublishedApi internal val pattern = ByteArray(CHUNK_BYTES + PERIOD) { (it % PERIOD).toByte() }

    fun byteAt(index: Long): Byte = (index % PERIOD).toByte()

    /** Calls [write] with consecutive slices of the payload of [size] bytes; [write] may suspend or block. */
    inline fun forEachChunk(size: Long, write: (bytes: ByteArray, offset: Int, length: Int) -> Unit) {
        var sent = 0L
        while (sent < size) {
            val length = minOf(CHUNK_BYTES.toLong(), size - sent).toInt()
            write(pattern, (sent % PERIOD).toInt(), length)
            sent += length
        }
    }
}
