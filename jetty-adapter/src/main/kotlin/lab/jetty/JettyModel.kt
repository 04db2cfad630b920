package lab.jetty

import lab.handlers.LiveCounters
import lab.support.ServerConfig
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.websocket.api.Session

/**
 * How a Jetty server's tasks wait: the one thing its servers pass in differently. The server,
 * connector, WebSocket container, downstream client, disconnect watcher and handler core are [JettyLabServer]'s
 * and the same for every model, so any difference in their figures comes from here.
 *
 * [ThreadModel] blocks a thread per task (virtual or platform); [CoroutineModel] suspends a coroutine.
 */
sealed class JettyModel {
    /** Serves every HTTP request; never blocks the calling thread, which may be Jetty's selector. */
    internal abstract fun requests(
        config: ServerConfig,
        counters: LiveCounters,
        downstream: DownstreamClient,
        watcher: DisconnectWatcher,
    ): Handler

    /** The task of one WebSocket, for its whole life. */
    internal abstract fun webSocket(counters: LiveCounters): Session.Listener

    /** Ends every task still running, once the server has stopped. */
    internal abstract fun stop()
}
