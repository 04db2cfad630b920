package lab.jetty

import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import lab.handlers.LiveCounters
import lab.support.ServerConfig
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.websocket.api.Session

/**
 * Tasks that suspend: each request and each WebSocket is a coroutine, and waiting (a delay, a
 * downstream call, the next frame, a write to a slow client) holds no thread.
 *
 * The coroutines run on [Dispatchers.Default]: one thread per core (at least two), as many as
 * the virtual-thread scheduler's carriers on this lab's hosts, so the coroutine and virtual models run request code
 * on the same number of threads and differ only in how a task waits. Jetty's own threads are
 * never used for handler code, as on the thread models. Nothing on Default blocks: `/delay`
 * suspends, the downstream client is asynchronous, and the pinning traps, which do block,
 * run on [Dispatchers.IO], where blocking code belongs.
 *
 * There is no bound on coroutines, as there is none on virtual threads: this model never answers 503.
 */
class CoroutineModel : JettyModel() {
    // SupervisorJob: one failed request or socket must not cancel the others.
    internal val scope = CoroutineScope(SupervisorJob() + Dispatchers.Default + CoroutineName("jetty-coroutine"))

    override fun requests(config: ServerConfig, counters: LiveCounters, downstream: DownstreamClient, watcher: DisconnectWatcher): Handler =
        SuspendingRequests(config, scope, counters, SuspendingDownstream(downstream), watcher)

    override fun webSocket(counters: LiveCounters): Session.Listener = SuspendingEchoSocket(scope, counters)

    override fun stop() {
        scope.cancel()
    }
}
