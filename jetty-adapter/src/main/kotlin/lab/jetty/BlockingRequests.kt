package lab.jetty

import lab.handlers.Endpoint
import lab.handlers.Handlers
import lab.handlers.LiveCounters
import lab.handlers.PayloadBytes
import lab.handlers.Router
import lab.support.ServerConfig
import org.eclipse.jetty.io.Content
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.server.Request
import org.eclipse.jetty.server.Response
import org.eclipse.jetty.util.Callback
import java.util.concurrent.RejectedExecutionException

/**
 * Every HTTP request of a Jetty server on a [ThreadModel]. The handler itself never blocks
 * (Jetty may call it on a selector thread): it hands the request to a thread of the model,
 * where the endpoint runs as plain blocking code, one thread per request. When the model has
 * no thread left, it answers 503 right here instead of queueing the request behind the others.
 */
internal class BlockingRequests(
    private val config: ServerConfig,
    private val model: ThreadModel,
    private val counters: LiveCounters,
    private val downstream: BlockingDownstream,
    private val watcher: DisconnectWatcher,
) : Handler.Abstract.NonBlocking() {
    private val router = Router(config.limits)

    override fun handle(request: Request, response: Response, callback: Callback): Boolean {
        val counted = counters.inFlight(callback)
        try {
            model.executor.execute { serve(request, response, counted) }
        } catch (e: RejectedExecutionException) {
            response.send(Handlers.overloaded(), counted)
        }
        return true
    }

    /** Runs on a thread of the model, and may block it. */
    private fun serve(request: Request, response: Response, callback: Callback) {
        try {
            when (val endpoint = router.route(request)) {
                is Endpoint.Cpu -> response.send(Handlers.cpu(endpoint.iterations), callback)
                is Endpoint.Delay -> {
                    Thread.sleep(endpoint.ms)
                    response.send(Handlers.delayed(endpoint.ms), callback)
                }
                is Endpoint.Pin -> {
                    endpoint.trap.spring(endpoint.ms)
                    response.send(Handlers.pinned(endpoint.trap, endpoint.ms), callback)
                }
                is Endpoint.Dashboard -> dashboard(endpoint.userId, request, response, callback)
                is Endpoint.Bytes -> stream(endpoint.size, response, callback)
                else -> response.send(immediateReply(endpoint, config, counters), callback)
            }
        } catch (e: Throwable) {
            callback.failed(e)
        }
    }

    private fun dashboard(userId: String, request: Request, response: Response, callback: Callback) {
        val watch = watcher.watchFor(request)
        val reply = downstream.dashboard(userId, watch)
        response.sendDashboard(reply, userId, watch, callback)
    }

    /** `/bytes` as blocking writes: the thread blocks whenever the client reads slower than we write. */
    private fun stream(size: Long, response: Response, callback: Callback) {
        response.startBytes(size)
        Content.Sink.asOutputStream(response).use { out ->
            PayloadBytes.forEachChunk(size) { bytes, offset, length -> out.write(bytes, offset, length) }
        }
        callback.succeeded()
    }
}
