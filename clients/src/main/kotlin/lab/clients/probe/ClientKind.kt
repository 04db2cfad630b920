package lab.clients.probe

import io.ktor.client.engine.apache5.Apache5
import io.ktor.client.engine.cio.CIO
import io.ktor.client.engine.java.Java
import io.ktor.client.engine.okhttp.OkHttp

/**
 * Every client the experiments compare, each configured to allow `maxConcurrent` requests at
 * once: its pool or dispatcher is sized to it, so no client queues requests another would send.
 * [waits] says what a request holds while its answer is due, which is what the thread census sees.
 */
enum class ClientKind(val slug: String, val waits: String) {
    RETROFIT("retrofit", "a thread of OkHttp's dispatcher pool, blocked in a socket read") {
        override fun open(maxConcurrent: Int) = RetrofitClient(OkHttpPool.platformThreads(maxConcurrent))
    },
    OKHTTP("okhttp", "a thread of OkHttp's dispatcher pool (Call.enqueue), blocked in a socket read") {
        override fun open(maxConcurrent: Int) = OkHttpAsyncClient(OkHttpPool.platformThreads(maxConcurrent))
    },
    KTOR_JAVA("ktor-java", "a suspended coroutine; the JDK client's selector thread") {
        override fun open(maxConcurrent: Int) = KtorClient(Java) { protocolVersion = java.net.http.HttpClient.Version.HTTP_1_1 }
    },
    KTOR_CIO("ktor-cio", "a suspended coroutine; Ktor's own selector") {
        override fun open(maxConcurrent: Int) = KtorClient(CIO) {
            maxConnectionsCount = maxConcurrent
            endpoint.maxConnectionsPerRoute = maxConcurrent
        }
    },
    KTOR_OKHTTP("ktor-okhttp", "a thread of OkHttp's dispatcher pool under the coroutine") {
        override fun open(maxConcurrent: Int): ClientUnderTest {
            val pool = OkHttpPool.platformThreads(maxConcurrent)
            return KtorClient(OkHttp, onClose = pool::close) { preconfigured = pool.client }
        }
    },
    KTOR_APACHE5("ktor-apache5", "a suspended coroutine; Apache's I/O reactor threads") {
        override fun open(maxConcurrent: Int) = KtorClient(Apache5) {
            configureConnectionManager {
                setMaxConnTotal(maxConcurrent)
                setMaxConnPerRoute(maxConcurrent)
            }
        }
    },
    JDK("jdk-httpclient", "a CompletableFuture (sendAsync); the JDK client's selector thread") {
        override fun open(maxConcurrent: Int) = JdkAsyncClient()
    },
    RETROFIT_VIRTUAL("retrofit-vthreads", "a virtual thread of OkHttp's dispatcher, unmounted while it reads") {
        override fun open(maxConcurrent: Int) = RetrofitClient(OkHttpPool.virtualThreads(maxConcurrent))
    },
    BLOCKING_VIRTUAL("blocking-vthreads", "a virtual thread blocked in HttpURLConnection, unmounted while it reads") {
        override fun open(maxConcurrent: Int) = UrlConnectionOnVirtualThreads()
    },
    ;

    abstract fun open(maxConcurrent: Int): ClientUnderTest

    companion object {
        val slugs = entries.map { it.slug }

        /** The client named [slug]; null if there is none. */
        fun of(slug: String): ClientKind? = entries.firstOrNull { it.slug == slug }
    }
}
