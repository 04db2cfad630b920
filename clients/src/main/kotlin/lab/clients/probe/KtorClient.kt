package lab.clients.probe

import io.ktor.client.HttpClient
import io.ktor.client.engine.HttpClientEngineConfig
import io.ktor.client.engine.HttpClientEngineFactory
import io.ktor.client.request.get
import io.ktor.client.request.prepareGet
import io.ktor.client.statement.bodyAsChannel
import io.ktor.client.statement.bodyAsText
import io.ktor.utils.io.readAvailable

/**
 * The Ktor client on one engine: the same calls for every engine, so only the engine differs.
 * [onClose] stops what the caller built for the engine (the OkHttp engine's dispatcher pool).
 */
class KtorClient<T : HttpClientEngineConfig>(
    factory: HttpClientEngineFactory<T>,
    private val onClose: () -> Unit = {},
    configure: T.() -> Unit,
) : ClientUnderTest {
    private val client = HttpClient(factory) {
        engine(configure)
        expectSuccess = false
    }

    override suspend fun getText(url: String): String {
        val response = client.get(url)
        requireOk(response.status.value, url)
        return response.bodyAsText()
    }

    override suspend fun download(url: String, sink: BodySink): Long = client.prepareGet(url).execute { response ->
        requireOk(response.status.value, url)
        val channel = response.bodyAsChannel()
        val buffer = ByteArray(READ_BUFFER_BYTES)
        var total = 0L
        while (true) {
            val read = channel.readAvailable(buffer, 0, buffer.size)
            if (read < 0) break
            sink.accept(buffer, 0, read)
            total += read
        }
        total
    }

    override fun close() {
        client.close()
        onClose()
    }
}
