package lab.jetty

import lab.handlers.ContentTypes
import lab.handlers.Endpoint
import lab.handlers.Handlers
import lab.handlers.LiveCounters
import lab.handlers.Reply
import lab.handlers.Router
import lab.support.ServerConfig
import org.eclipse.jetty.http.HttpHeader
import org.eclipse.jetty.http.HttpHeaderValue
import org.eclipse.jetty.io.EofException
import org.eclipse.jetty.server.Request
import org.eclipse.jetty.server.Response
import org.eclipse.jetty.util.Callback

/** Counts a request in flight until its [callback] completes, as `/stats` reports on every server. */
internal fun LiveCounters.inFlight(callback: Callback): Callback {
    inFlightRequests.incrementAndGet()
    return Callback.from(callback, Runnable { inFlightRequests.decrementAndGet() })
}

/** What [request] asks for, routed the same way on every Jetty model. */
internal fun Router.route(request: Request): Endpoint {
    val query = Request.extractQueryParameters(request)
    return route(request.method, request.httpURI.path) { query.getValue(it) }
}

/** The answer of an endpoint that involves no waiting, the same on every Jetty model. */
internal fun immediateReply(endpoint: Endpoint, config: ServerConfig, counters: LiveCounters): Reply = when (endpoint) {
    Endpoint.Health -> Handlers.health()
    Endpoint.Hello -> Handlers.hello()
    Endpoint.Stats -> Handlers.stats(config.engine, config.model, counters)
    Endpoint.WebSocketWithoutUpgrade -> Handlers.webSocketWithoutUpgrade()
    is Endpoint.Rejected -> endpoint.reply
    is Endpoint.Cpu, is Endpoint.Delay, is Endpoint.Pin, is Endpoint.Dashboard, is Endpoint.Bytes ->
        error("$endpoint waits: its model answers it")
}

/**
 * Sends `/dashboard`'s [reply]; null means the client left, so the response fails and Jetty
 * closes the connection. A pipelined byte the [watch] consumed means the connection closes after it.
 */
internal fun Response.sendDashboard(reply: Reply?, userId: String, watch: ClientDisconnectWatch, callback: Callback) {
    if (reply == null) {
        callback.failed(EofException("client closed the connection during /dashboard/$userId"))
        return
    }
    if (watch.sawPipelinedBytes) headers.put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE)
    send(reply, callback)
}

/** The head of a `/bytes` answer of [size] bytes; the body is written by the model, blocking or suspended. */
internal fun Response.startBytes(size: Long) {
    status = 200
    headers.put(HttpHeader.CONTENT_TYPE, ContentTypes.BYTES)
    headers.put(HttpHeader.CONTENT_LENGTH, size)
}
