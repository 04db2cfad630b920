package lab.io

/**
 * The unit every benchmark moves: 64 KiB at a time, filled with a deterministic pattern.
 *
 * Every reader reads into a buffer of [SIZE_BYTES] and every writer writes chunks of [SIZE_BYTES], so the
 * variants differ only in the API under test, not in how many calls they make: 2048 calls for 128 MiB,
 * few enough that the per-call cost of any API stays small against copying the bytes.
 */
object Chunks {
    /** Bytes in one read buffer or one written chunk. */
    const val SIZE_BYTES: Int = 64 * 1024

    /**
     * The pattern's period: byte `i` of a file or stream is `i mod 251`. A prime, so the pattern never lines
     * up with a power-of-two buffer boundary and a misplaced chunk would show.
     */
    const val PATTERN_PERIOD: Int = 251

    /** One chunk of the pattern as it would appear at stream offset 0: the chunk every socket writer sends. */
    @JvmStatic
    fun pattern(): ByteArray = ByteArray(SIZE_BYTES).also { fill(it, offsetBytes = 0) }

    /** Fills [chunk] with the pattern as it appears from stream offset [offsetBytes] on. */
    fun fill(
        chunk: ByteArray,
        offsetBytes: Long,
    ) {
        var value = (offsetBytes % PATTERN_PERIOD).toInt()
        for (i in chunk.indices) {
            chunk[i] = value.toByte()
            value = if (value == PATTERN_PERIOD - 1) 0 else value + 1
        }
    }
}
