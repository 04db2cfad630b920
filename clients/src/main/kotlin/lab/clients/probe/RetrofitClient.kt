package lab.clients.probe

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import okhttp3.ResponseBody
import retrofit2.Retrofit
import retrofit2.converter.scalars.ScalarsConverterFactory
import retrofit2.http.GET
import retrofit2.http.Streaming
import retrofit2.http.Url

/**
 * Retrofit's suspending interface over OkHttp, as the client-threads article used it: the
 * coroutine suspends, and OkHttp's dispatcher runs the call on one of its executor's threads.
 */
class RetrofitClient(private val pool: OkHttpPool) : ClientUnderTest {
    private interface Api {
        @GET
        suspend fun text(@Url url: String): String

        @Streaming
        @GET
        suspend fun bytes(@Url url: String): ResponseBody
    }

    // Every call passes a whole URL; Retrofit still insists on a base.
    private val api = Retrofit.Builder()
        .baseUrl("http://127.0.0.1/")
        .client(pool.client)
        .addConverterFactory(ScalarsConverterFactory.create())
        .build()
        .create(Api::class.java)

    override suspend fun getText(url: String): String = api.text(url)

    // A streamed body is read by the caller, and the read blocks: on the IO dispatcher, as an application would.
    override suspend fun download(url: String, sink: BodySink): Long {
        val body = api.bytes(url)
        return withContext(Dispatchers.IO) { body.use { it.byteStream().drainTo(sink) } }
    }

    override fun close() = pool.close()
}
