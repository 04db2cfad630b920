package lab.clients.probe

import okhttp3.ConnectionPool
import okhttp3.Dispatcher
import okhttp3.OkHttpClient
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * An [OkHttpClient] whose dispatcher lets `maxConcurrent` calls run at once (its default is 64,
 * and 5 a host), on the executor the variant chooses. Closing it stops that executor and drops
 * the pooled connections, so none of its threads outlives the client.
 */
class OkHttpPool private constructor(maxConcurrent: Int, private val executor: ExecutorService) : AutoCloseable {
    private val dispatcher = Dispatcher(executor).apply {
        maxRequests = maxConcurrent
        maxRequestsPerHost = maxConcurrent
    }

    val client: OkHttpClient = OkHttpClient.Builder()
        .dispatcher(dispatcher)
        .connectionPool(ConnectionPool(maxConcurrent, 1, TimeUnit.MINUTES))
        // OkHttp's 10 s read timeout would cut the large downloads on a slow server; the experiments bound their own time.
        .readTimeout(0, TimeUnit.MILLISECONDS)
        .build()

    override fun close() {
        executor.shutdownNow()
        client.connectionPool.evictAll()
        executor.awaitTermination(5, TimeUnit.SECONDS)
    }

    companion object {
        /** OkHttp's own executor: a cached pool of platform threads, one a call in flight. */
        fun platformThreads(maxConcurrent: Int) = OkHttpPool(maxConcurrent, Dispatcher().executorService)

        /** The variant the client-threads article only speculated about: each call on a new virtual thread. */
        fun virtualThreads(maxConcurrent: Int) =
            OkHttpPool(maxConcurrent, Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("okhttp-virtual-", 0).factory()))
    }
}
