package lab.jetty

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.suspendCancellableCoroutine
import lab.handlers.Endpoint
import lab.handlers.Handlers
import lab.handlers.LiveCounters
import lab.handlers.PayloadBytes
import lab.handlers.Router
import lab.support.ServerConfig
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.server.Request
import org.eclipse.jetty.server.Response
import org.eclipse.jetty.util.Callback
import java.nio.ByteBuffer
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException

/**
 * Every HTTP request of a Jetty server on the [CoroutineModel]: each is a coroutine of [scope],
 * and Jetty's asynchronous request and response are bridged to suspending code, so a request
 * holds no thread while it waits. The mirror of [BlockingRequests], endpoint for endpoint.
 */
internal class SuspendingRequests(
    private val config: ServerConfig,
    private val scope: CoroutineScope,
    private val blocksOn: CoroutineDispatcher,
    private val counters: LiveCounters,
    private val downstream: SuspendingDownstream,
    private val watcher: DisconnectWatcher,
) : Handler.Abstract.NonBlocking() {
    private val router = Router(config.limits)

    override fun handle(request: Request, response: Response, callback: Callback): Boolean {
        val counted = counters.inFlight(callback)
        // ATOMIC: the coroutine runs even if the scope is cancelled meanwhile (the server stopping), so the callback is always completed.
        scope.launch(start = CoroutineStart.ATOMIC) { serve(request, response, counted) }
        return true
    }

    private suspend fun serve(request: Request, response: Response, callback: Callback) {
        try {
            when (val endpoint = router.route(request)) {
                // On the model's dispatcher, as every handler here (CoroutineModel).
                is Endpoint.Cpu -> response.send(Handlers.cpu(endpoint.iterations), callback)
                is Endpoint.Delay -> {
                    delay(endpoint.ms)
                    response.send(Handlers.delayed(endpoint.ms), callback)
                }
                // The traps block, where the model runs blocking code: on Dispatchers.IO they cannot pin, on virtual threads they may.
                is Endpoint.Pin -> {
                    runInterruptible(blocksOn) { endpoint.trap.spring(endpoint.ms) }
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

    private suspend fun dashboard(userId: String, request: Request, response: Response, callback: Callback) {
        val watch = watcher.watchFor(request)
        val reply = watch.unlessClientLeaves { downstream.dashboard(userId) }
        response.sendDashboard(reply, userId, watch, callback)
    }

    /** `/bytes` as suspended writes: the coroutine suspends whenever the client reads slower than we write. */
    private suspend fun stream(size: Long, response: Response, callback: Callback) {
        response.startBytes(size)
        // Each chunk is a slice of one shared, never-changing array, so a write may still read it after we resume.
        PayloadBytes.forEachChunk(size) { bytes, offset, length -> response.writeSuspending(ByteBuffer.wrap(bytes, offset, length)) }
        callback.succeeded()
    }

    private suspend fun Response.writeSuspending(chunk: ByteBuffer) = suspendCancellableCoroutine { written ->
        write(false, chunk, Callback.from({ written.resume(Unit) }, { written.resumeWithException(it) }))
    }
}
