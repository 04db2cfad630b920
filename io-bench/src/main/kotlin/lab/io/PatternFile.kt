package lab.io

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.file.Path
import java.nio.file.StandardOpenOption.CREATE_NEW
import java.nio.file.StandardOpenOption.WRITE

/**
 * The file the read benchmarks read: [Chunks]' pattern (byte `i` is `i mod 251`) for exactly the size asked.
 *
 * Writing it leaves it in the page cache, so every read measured is a read from memory through the kernel,
 * not from the disk: the 2021 article's repeated reads of one file were cached in the same way. The numbers
 * therefore compare the cost of the APIs, which is the question, and not the storage.
 */
object PatternFile {
    /** Creates [file] (which must not exist) holding [sizeBytes] bytes of the pattern, and returns it. */
    @JvmStatic
    fun create(
        file: Path,
        sizeBytes: Long,
    ): Path {
        require(sizeBytes >= 0) { "sizeBytes must be >= 0, was $sizeBytes" }
        val chunk = ByteArray(Chunks.SIZE_BYTES)
        FileChannel.open(file, CREATE_NEW, WRITE).use { channel ->
            var writtenBytes = 0L
            while (writtenBytes < sizeBytes) {
                val lengthBytes = minOf(chunk.size.toLong(), sizeBytes - writtenBytes).toInt()
                Chunks.fill(chunk, writtenBytes)
                val buffer = ByteBuffer.wrap(chunk, 0, lengthBytes)
                while (buffer.hasRemaining()) channel.write(buffer)
                writtenBytes += lengthBytes
            }
        }
        return file
    }
}
