package lab.ktorcoroutine

import io.ktor.client.HttpClient
import io.ktor.client.HttpClientConfig
import io.ktor.client.engine.apache5.Apache5
import io.ktor.client.engine.cio.CIO
import io.ktor.client.engine.cio.endpoint
import io.ktor.client.engine.java.Java
import io.ktor.client.engine.okhttp.OkHttp
import io.ktor.client.plugins.HttpTimeout
import lab.handlers.Limits
import lab.support.EngineChanges
import okhttp3.ConnectionPool
import okhttp3.Dispatcher
import java.util.concurrent.TimeUnit

/**
 * The Ktor server's downstream client: Ktor's `HttpClient` on CIO, or on the client engine an alternative names
 * (servers.json's `ktor-netty` alternatives, one at a time). On every engine it holds the bounds every server's client
 * holds: [Limits.DOWNSTREAM_CONNECTIONS_MAX] connections to the stub and calls queued behind them, and the contract's
 * downstream timeout as the one deadline that ends a call.
 */
internal object DownstreamHttpClient {
    /** The alternatives that put the client on another engine than CIO. */
    val ENGINES = listOf(OKHTTP, APACHE5, JAVA)

    /** The client [changes] choose; [IllegalArgumentException] when they name more than one engine. */
    fun of(changes: EngineChanges, timeoutMs: Long): HttpClient {
        val named = ENGINES.filter { changes.on(it) }
        require(named.size <= 1) { "${named.joinToString(" and ")} each put the downstream client on an engine of its own: name one" }
        return when (named.singleOrNull()) {
            OKHTTP -> okHttp(timeoutMs)
            APACHE5 -> apache5(timeoutMs)
            JAVA -> java(timeoutMs)
            else -> cio(timeoutMs)
        }
    }

    private fun cio(timeoutMs: Long) = HttpClient(CIO) {
        expectSuccess = false
        engine {
            // The contract's one bound, through the plugin, instead of CIO's own 15 s on top of it.
            requestTimeout = 0
            // CIO's 100 connections to one host, and its 5 s connect timeout that a call waiting for one of them runs
            // out, failed most /dashboards at 1,000 in flight (Limits.DOWNSTREAM_CONNECTIONS_MAX): the declared bound instead.
            maxConnectionsCount = Limits.DOWNSTREAM_CONNECTIONS_MAX
            endpoint {
                maxConnectionsPerRoute = Limits.DOWNSTREAM_CONNECTIONS_MAX
                connectTimeout = timeoutMs
            }
        }
        install(HttpTimeout) { requestTimeoutMillis = timeoutMs }
    }

    private fun okHttp(timeoutMs: Long) = HttpClient(OkHttp) {
        everyTimeoutIs(timeoutMs)
        engine {
            config {
                // OkHttp runs at most 5 calls to one host and keeps 5 idle connections by default. Its dispatcher runs
                // each call on a thread of its own, which blocks while the call waits: that is OkHttp's, and shows in
                // the server's threads.
                dispatcher(
                    Dispatcher().apply {
                        maxRequests = Limits.DOWNSTREAM_CONNECTIONS_MAX
                        maxRequestsPerHost = Limits.DOWNSTREAM_CONNECTIONS_MAX
                    },
                )
                connectionPool(ConnectionPool(Limits.DOWNSTREAM_CONNECTIONS_MAX, IDLE_CONNECTION_KEPT_MINUTES, TimeUnit.MINUTES))
            }
        }
    }

    private fun apache5(timeoutMs: Long) = HttpClient(Apache5) {
        everyTimeoutIs(timeoutMs)
        engine {
            // Its wait for a pooled connection is a timeout of its own (20 s by default).
            connectionRequestTimeout = timeoutMs
            // Ktor's Apache 5 engine holds 1,000 connections.
            configureConnectionManager {
                setMaxConnTotal(Limits.DOWNSTREAM_CONNECTIONS_MAX)
                setMaxConnPerRoute(Limits.DOWNSTREAM_CONNECTIONS_MAX)
            }
        }
    }

    // The JDK's client keeps its connections without a bound of its own.
    private fun java(timeoutMs: Long) = HttpClient(Java) { everyTimeoutIs(timeoutMs) }

    /**
     * The contract's downstream timeout as the call's, the connect's and the socket's: an engine's own defaults (10 s a
     * socket on OkHttp and Apache 5) would end a call before it, so it is the one that ends a call, as on CIO.
     */
    private fun HttpClientConfig<*>.everyTimeoutIs(timeoutMs: Long) {
        expectSuccess = false
        install(HttpTimeout) {
            requestTimeoutMillis = timeoutMs
            connectTimeoutMillis = timeoutMs
            socketTimeoutMillis = timeoutMs
        }
    }

    const val OKHTTP = "client-okhttp"
    const val APACHE5 = "client-apache5"
    const val JAVA = "client-java"

    /** OkHttp's own default, past any pause between a run's steps: a warm connection is kept, as Jetty's client keeps its. */
    private const val IDLE_CONNECTION_KEPT_MINUTES = 5L
}
