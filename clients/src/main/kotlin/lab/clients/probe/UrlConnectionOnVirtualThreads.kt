package lab.clients.probe

import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.withContext
import java.net.HttpURLConnection
import java.net.URI
import java.util.concurrent.Executors

/**
 * The plainest blocking client, `HttpURLConnection`, each call on its own virtual thread while
 * the coroutine waits suspended: what blocking code costs once Loom parks it instead of a thread.
 */
class UrlConnectionOnVirtualThreads : ClientUnderTest {
    private val executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("url-connection-", 0).factory())
    private val virtualThreads = executor.asCoroutineDispatcher()

    override suspend fun getText(url: String): String = call(url) { it.inputStream.readAllBytes().decodeToString() }

    override suspend fun download(url: String, sink: BodySink): Long = call(url) { it.inputStream.drainTo(sink) }

    private suspend fun <T> call(url: String, read: (HttpURLConnection) -> T): T = withContext(virtualThreads) {
        val connection = URI(url).toURL().openConnection() as HttpURLConnection
        try {
            requireOk(connection.responseCode, url)
            read(connection)
        } finally {
            // Closes the socket rather than caching it: the keep-alive cache has a timer thread that outlives the client.
            connection.disconnect()
        }
    }

    override fun close() = executor.close()
}
