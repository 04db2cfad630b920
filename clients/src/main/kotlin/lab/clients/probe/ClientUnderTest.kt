package lab.clients.probe

/**
 * One HTTP client as an application holds it: opened for at most `maxConcurrent` requests in
 * flight (see [ClientKind.open]), used from coroutines, then closed, which must stop every
 * thread it started so the next client's thread census starts clean.
 */
interface ClientUnderTest : AutoCloseable {
    /** GETs [url] and returns the body as text; throws unless the status is 200. */
    suspend fun getText(url: String): String

    /** GETs [url], hands the body to [sink] chunk by chunk as it arrives, and returns its length in bytes. */
    suspend fun download(url: String, sink: BodySink): Long
}

/** Where a download's bytes go; called from whatever thread the client reads on. */
fun interface BodySink {
    fun accept(bytes: ByteArray, offset: Int, length: Int)
}

/** The status every call of the experiments expects, and the error when another comes back. */
internal fun requireOk(status: Int, url: String) {
    if (status != 200) throw IllegalStateException("GET $url answered $status")
}

/** The buffer each client reads a body into: the servers write `/bytes` in chunks of this size. */
internal const val READ_BUFFER_BYTES = 64 * 1024
