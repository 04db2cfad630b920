package lab.jetty

import lab.handlers.Limits
import lab.handlers.LiveCounters
import lab.handlers.WebSocketHandshake
import lab.support.ServerConfig
import org.eclipse.jetty.http.HttpCompliance
import org.eclipse.jetty.io.ByteBufferPool
import org.eclipse.jetty.server.HttpConfiguration
import org.eclipse.jetty.server.Server
import org.eclipse.jetty.server.ServerConnector
import org.eclipse.jetty.util.thread.QueuedThreadPool
import org.eclipse.jetty.websocket.api.ExtensionConfig
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler
import java.time.Duration

/**
 * A Jetty 12 server that obeys the handler contract on a given [JettyModel].
 *
 * Jetty's own small pool of platform threads runs the acceptor, the selector and the
 * non-blocking parsing; every request and WebSocket is handed to the model, which runs it as
 * blocking code on its threads or as a coroutine. Keeping the selector on a platform thread
 * also matters for virtual threads: `Selector.select()` pins its carrier, so a selector on a
 * virtual thread would take a carrier away for good.
 */
class JettyLabServer(private val config: ServerConfig, private val model: JettyModel) {
    private val counters = LiveCounters(config.socketBallast)

    fun serveUntilStopped() {
        val threads = QueuedThreadPool(ENGINE_THREADS, 4).apply { name = "jetty-engine" }
        // The alternative to the fill lock (servers.json): a pool that reuses no buffer, so a buffer two threads of one
        // connection both hold is never another connection's. A null scheduler is Jetty's default one.
        val server = if (config.changes.on("non-pooling-buffers")) Server(threads, null, ByteBufferPool.NonPooling()) else Server(threads)
        val http = HttpConfiguration().apply {
            sendServerVersion = false
            sendDateHeader = false
            // RFC 9112 2.2 lets a server take a bare LF for CRLF, and Jetty's default mode does; Netty under Ktor
            // answers 400, and so do these servers: a line ending two parsers read differently is how requests are smuggled.
            if (config.changes.on("no-bare-lf")) {
                httpCompliance = HttpCompliance.RFC9110.without("RFC9110_CRLF", HttpCompliance.Violation.LF_HEADER_TERMINATION)
            }
        }
        val connector = ServerConnector(
            server,
            1,
            1,
            HeadTimedConnectionFactory(http, config.limits.requestHeadTimeoutMs, config.changes),
        ).apply {
            host = config.host
            port = config.port
            // Netty under Ktor closes no idle connection by default; Jetty's 30 s default would
            // close k6's keep-alive connections in quiet phases, so the servers would differ.
            idleTimeout = 0
            // The JDK's default backlog is 50 where Netty asks for somaxconn: both ask for Limits.ACCEPT_BACKLOG.
            acceptQueueSize = Limits.ACCEPT_BACKLOG
        }
        server.addConnector(connector)

        val downstream = DownstreamClient(config.downstreamUrl, config.limits.downstreamTimeoutMs)
        val watcher = DisconnectWatcher()
        val webSockets = WebSocketUpgradeHandler.from(server) { container ->
            val maxFrameBytes = config.limits.maxFrameBytes.toLong()
            container.maxFrameSize = maxFrameBytes
            container.maxTextMessageSize = maxFrameBytes
            container.maxBinaryMessageSize = maxFrameBytes
            // Idle sockets are the point of a run; like Ktor's, they never time out.
            container.idleTimeout = Duration.ZERO
            container.addMapping("/ws") { _, response, _ ->
                // Jetty agrees to permessage-deflate when a client offers it; every server agrees to the same extensions.
                if (config.changes.on("no-websocket-extensions")) {
                    response.extensions = WebSocketHandshake.extensions.map(ExtensionConfig::parse)
                }
                model.webSocket(counters)
            }
        }
        webSockets.handler = model.requests(config, counters, downstream, watcher)
        server.handler = HandshakeCheck(webSockets)
        server.stopTimeout = ServerConfig.SHUTDOWN_GRACE_MS
        server.stopAtShutdown = true

        try {
            // Inside the try: a server that fails to start (its port taken) must still stop the client's threads, or the JVM stays.
            server.start()
            config.announceReady(connector.localPort)
            server.join()
        } finally {
            model.stop()
            downstream.close()
            watcher.close()
        }
    }

    companion object {
        /** What every server on this adapter reports as its engine. */
        const val ENGINE = "jetty"

        /** Jetty's own threads: acceptor, selector and a few for parsing; never the thread model under test. */
        private const val ENGINE_THREADS = 16
    }
}
