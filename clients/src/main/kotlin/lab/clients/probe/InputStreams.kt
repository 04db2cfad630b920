package lab.clients.probe

import java.io.InputStream

/** Reads the stream to its end into [sink], through one buffer; returns the byte count. */
internal fun InputStream.drainTo(sink: BodySink): Long {
    val buffer = ByteArray(READ_BUFFER_BYTES)
    var total = 0L
    while (true) {
        val read = read(buffer)
        if (read < 0) return total
        sink.accept(buffer, 0, read)
        total += read
    }
}
