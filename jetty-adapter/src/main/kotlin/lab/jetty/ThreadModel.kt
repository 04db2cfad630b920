package lab.jetty

import lab.handlers.LiveCounters
import lab.support.ServerConfig
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.websocket.api.Session
import java.util.concurrent.ExecutorService

/**
 * Tasks that block a thread of [executor]: each request, each WebSocket's task and each
 * downstream call. jetty-virtual-server passes an executor of virtual threads, jetty-platform-server a
 * bounded pool of OS threads; nothing else about them differs.
 *
 * [executor] throws `RejectedExecutionException` when it has no thread left to give; the
 * server then answers 503 (or closes a WebSocket with 1013) instead of queueing.
 */
class ThreadModel(val executor: ExecutorService) : JettyModel() {
    override fun requests(config: ServerConfig, counters: LiveCounters, downstream: DownstreamClient, watcher: DisconnectWatcher): Handler =
        BlockingRequests(config, this, counters, BlockingDownstream(downstream, this), watcher)

    override fun webSocket(counters: LiveCounters): Session.Listener = BlockingEchoSocket(this, counters)

    override fun stop() {
        executor.shutdownNow()
    }
}
