package lab.jetty

import lab.handlers.LiveCounters
import lab.support.ServerConfig
import okhttp3.ConnectionPool
import okhttp3.OkHttpClient
import org.eclipse.jetty.server.HttpConfiguration
import org.eclipse.jetty.server.HttpConnectionFactory
import org.eclipse.jetty.server.Server
import org.eclipse.jetty.server.ServerConnector
import org.eclipse.jetty.util.thread.QueuedThreadPool
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler
import java.time.Duration
import java.util.concurrent.TimeUnit

/**
 * A Jetty 12 server that obeys the handler contract on a given [ThreadModel].
 *
 * Jetty's own small pool of platform threads runs the acceptor, the selector and the
 * non-blocking parsing; everything that may block runs on the model's threads. Keeping the
 * selector on a platform thread also matters for virtual threads: `Selector.select()` pins
 * its carrier, so a selector on a virtual thread would take a carrier away for good.
 */
class JettyLabServer(private val config: ServerConfig, private val model: ThreadModel) {
    private val counters = LiveCounters()

    // execute() on the model's threads only: OkHttp's own dispatcher threads are never used.
    private val client = OkHttpClient.Builder()
        .connectionPool(ConnectionPool(ENGINE_THREADS, 5, TimeUnit.MINUTES))
        .build()

    fun serveUntilStopped() {
        val server = Server(QueuedThreadPool(ENGINE_THREADS, 4).apply { name = "jetty-engine" })
        val http = HttpConfiguration().apply {
            sendServerVersion = false
            sendDateHeader = false
        }
        val connector = ServerConnector(server, 1, 1, HttpConnectionFactory(http)).apply {
            host = config.host
            port = config.port
            // Netty under Ktor closes no idle connection by default; Jetty's 30 s default would
            // close k6's keep-alive connections in quiet phases, so the servers would differ.
            idleTimeout = 0
        }
        server.addConnector(connector)

        val downstream = BlockingDownstream(client, config.downstreamUrl, model)
        val webSockets = WebSocketUpgradeHandler.from(server) { container ->
            val maxFrameBytes = config.limits.maxFrameBytes.toLong()
            container.maxFrameSize = maxFrameBytes
            container.maxTextMessageSize = maxFrameBytes
            container.maxBinaryMessageSize = maxFrameBytes
            // Idle sockets are the point of a run; like Ktor's, they never time out.
            container.idleTimeout = Duration.ZERO
            container.addMapping("/ws") { _, _, _ -> BlockingEchoSocket(model, counters) }
        }
        webSockets.handler = LabHandler(config, model, counters, downstream)
        server.handler = webSockets
        server.stopTimeout = ServerConfig.SHUTDOWN_GRACE_MS
        server.stopAtShutdown = true

        server.start()
        config.announceReady(connector.localPort)
        try {
            server.join()
        } finally {
            model.executor.shutdownNow()
            client.dispatcher.executorService.shutdown()
            client.connectionPool.evictAll()
        }
    }

    companion object {
        /** What every server on this adapter reports as its engine. */
        const val ENGINE = "jetty"

        /** Jetty's own threads: acceptor, selector and a few for parsing; never the thread model under test. */
        private const val ENGINE_THREADS = 16
    }
}
