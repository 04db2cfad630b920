package lab.jetty

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.cancel
import lab.handlers.LiveCounters
import lab.support.ServerConfig
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.websocket.api.Session
import java.util.concurrent.Executors

/**
 * Tasks that suspend: each request and each WebSocket is a coroutine, and waiting (a delay, a
 * downstream call, the next frame, a write to a slow client) holds no thread.
 *
 * Where a coroutine runs between its suspensions is the dispatcher [runsOn]; where the blocking
 * code of the pinning traps runs is [blocksOn]. Nothing else differs between the two ways this
 * model is built ([onDefaultDispatcher], [onVirtualThreads]), so a difference in their figures is
 * where the coroutines ran. Jetty's own threads never run handler code, as on the thread models.
 *
 * There is no bound on coroutines, as there is none on virtual threads: this model never answers 503.
 */
class CoroutineModel private constructor(runsOn: CoroutineDispatcher, internal val blocksOn: CoroutineDispatcher, name: String) :
    JettyModel() {
    // SupervisorJob: one failed request or socket must not cancel the others.
    internal val scope = CoroutineScope(SupervisorJob() + runsOn + CoroutineName(name))

    override fun requests(config: ServerConfig, counters: LiveCounters, downstream: DownstreamClient, watcher: DisconnectWatcher): Handler =
        SuspendingRequests(config, scope, blocksOn, counters, SuspendingDownstream(downstream), watcher)

    override fun webSocket(counters: LiveCounters): Session.Listener = SuspendingEchoSocket(scope, counters)

    override fun stop() {
        scope.cancel()
    }

    companion object {
        /**
         * On [Dispatchers.Default]: one thread per core (at least two), as many as the virtual-thread scheduler's
         * carriers on this lab's hosts, so the coroutine and virtual models run request code on the same number of
         * threads and differ only in how a task waits. Nothing on Default blocks: `/delay` suspends, the downstream
         * client is asynchronous, and the pinning traps, which do block, run on [Dispatchers.IO], where blocking code
         * belongs in kotlinx.coroutines.
         */
        fun onDefaultDispatcher() = CoroutineModel(Dispatchers.Default, Dispatchers.IO, "jetty-coroutine")

        /**
         * On virtual threads, as kotlinx.coroutines users do it while it has no dispatcher of its own for them: a
         * virtual-thread-per-task executor as the dispatcher, so every resumption of a coroutine starts a new virtual
         * thread, which ends at the coroutine's next suspension. A suspended coroutine holds no virtual thread. Blocking
         * code runs on the same dispatcher, which is the reason to choose it: the traps block a virtual thread, and may
         * pin its carrier, as on the virtual-thread model. `delay` is kotlinx.coroutines' own timer thread, as it is for
         * any executor that schedules nothing.
         */
        fun onVirtualThreads(): CoroutineModel {
            val virtualThreads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("coroutine-vthread-", 0).factory())
            val dispatcher = virtualThreads.asCoroutineDispatcher()
            return CoroutineModel(dispatcher, dispatcher, "jetty-coroutine-virtual")
        }
    }
}
