package lab.ktorcoroutine

import io.ktor.client.HttpClient
import io.ktor.http.ContentType
import io.ktor.http.HttpHeaders
import io.ktor.http.HttpMethod
import io.ktor.http.HttpStatusCode
import io.ktor.http.content.OutgoingContent
import io.ktor.server.application.Application
import io.ktor.server.application.ApplicationCall
import io.ktor.server.application.ApplicationCallPipeline
import io.ktor.server.application.ApplicationStopped
import io.ktor.server.application.ServerReady
import io.ktor.server.application.install
import io.ktor.server.engine.applicationEnvironment
import io.ktor.server.engine.connector
import io.ktor.server.engine.embeddedServer
import io.ktor.server.http.HttpRequestLifecycle
import io.ktor.server.netty.Netty
import io.ktor.server.request.ApplicationRequest
import io.ktor.server.request.httpMethod
import io.ktor.server.request.httpVersion
import io.ktor.server.request.path
import io.ktor.server.request.uri
import io.ktor.server.response.respond
import io.ktor.server.response.respondBytes
import io.ktor.server.routing.route
import io.ktor.server.routing.routing
import io.ktor.server.websocket.WebSockets
import io.ktor.server.websocket.webSocket
import io.ktor.server.websocket.webSocketRaw
import io.ktor.utils.io.ByteWriteChannel
import io.ktor.utils.io.writeFully
import io.ktor.websocket.ChannelOverflow
import io.netty.channel.ChannelOption
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext
import lab.handlers.Endpoint
import lab.handlers.Handlers
import lab.handlers.Limits
import lab.handlers.LiveCounters
import lab.handlers.PayloadBytes
import lab.handlers.Reply
import lab.handlers.RequestHeadTimeout
import lab.handlers.Router
import lab.handlers.WebSocketHandshake
import lab.support.ServerConfig
import java.net.URI

/**
 * The coroutine server: Ktor on Netty. Every handler is `suspend` code, and waiting
 * (a delay, a downstream call, the next WebSocket frame) suspends a coroutine instead of
 * holding a thread. Netty's few event-loop threads are all the threads requests ever see.
 * [client] is `/dashboard`'s downstream client ([DownstreamHttpClient]), closed when the server stops.
 */
class CoroutineServer(private val config: ServerConfig, private val client: HttpClient) {
    private val counters = LiveCounters(config.socketBallast)
    private val router = Router(config.limits)
    private val changes = config.changes

    private val headTimeoutAnswer = RequestHeadTimeout.answer(config.limits.requestHeadTimeoutMs)
    private val downstream = CoroutineDownstream(client, config.downstreamUrl, config.limits.downstreamTimeoutMs)

    /** Serves until the process is told to stop; Ktor's own shutdown hook stops Netty on SIGTERM. */
    fun serveUntilStopped() {
        val server = embeddedServer(
            Netty,
            applicationEnvironment(),
            configure = {
                connector {
                    host = config.host
                    port = config.port
                }
                // Netty's own default is somaxconn; declared, so both engines ask for the same backlog.
                configureBootstrap = { option(ChannelOption.SO_BACKLOG, Limits.ACCEPT_BACKLOG) }
                // An alternative (servers.json): calls on the event loop that read them, not on a call group of their own.
                shareWorkGroup = changes.on(SHARE_WORK_GROUP)
                shutdownGracePeriod = ServerConfig.SHUTDOWN_GRACE_MS / 2
                shutdownTimeout = ServerConfig.SHUTDOWN_GRACE_MS
                channelPipelineConfig = {
                    // Installed first, so the clock's Stop ends up between the codec and it.
                    if (changes.on("unparsable-head")) UnparsableHead.install(this)
                    if (changes.on("client-frame-masks")) ClientFrameMasks.install(this)
                    if (changes.on(
                            "request-head-clock",
                        )
                    ) {
                        RequestHeadClock.install(this, config.limits.requestHeadTimeoutMs, headTimeoutAnswer)
                    }
                }
            },
            module = { labModule() },
        )
        server.monitor.subscribe(ServerReady) {
            // The connectors are bound by now, so this does not wait.
            config.announceReady(runBlocking { server.engine.resolvedConnectors().first().port })
        }
        server.monitor.subscribe(ApplicationStopped) { client.close() }
        server.start(wait = true)
    }

    private fun Application.labModule() {
        // Ktor keeps running a call whose client has gone unless told otherwise; the
        // contract says /dashboard cancels its downstream calls when the client leaves.
        install(HttpRequestLifecycle) { cancelCallOnClose = true }
        install(WebSockets) {
            maxFrameSize = config.limits.maxFrameBytes.toLong()
            // Ktor's default queues are unlimited: they kept every echo a client would not take (130 MiB of 128 sent,
            // SlowReaderTest).
            if (changes.on("bounded-queues")) {
                channels {
                    incoming = bounded(Limits.WEB_SOCKET_FRAMES_QUEUED, ChannelOverflow.SUSPEND)
                    outgoing = bounded(Limits.WEB_SOCKET_FRAMES_QUEUED, ChannelOverflow.SUSPEND)
                }
            }
        }
        // What Netty and Ktor let through and the RFCs refuse, refused before routing, with the core's answers.
        intercept(ApplicationCallPipeline.Plugins) {
            refusal(context.request)?.let {
                context.reply(it)
                finish()
            }
        }
        routing {
            if (changes.on("raw-session")) {
                webSocketRaw("/ws") {
                    // This coroutine *is* the socket's task: it suspends until the next frame.
                    counters.openSocket().use { echoPerRfc(config.limits.maxFrameBytes) }
                    if (changes.on("close-linger")) letLastFrameOut()
                }
            } else {
                // Ktor's own session, as its guide writes an echo: it answers pings and closes itself, and hands on data frames.
                webSocket("/ws") {
                    counters.openSocket().use { for (frame in incoming) outgoing.send(frame.copy()) }
                }
            }
            route("{...}") {
                handle { counters.inFlight { serve(call) } }
            }
        }
    }

    private suspend fun serve(call: ApplicationCall) {
        val request = call.request
        val endpoint = router.route(request.httpMethod.value, request.targetPath()) { request.queryParameters[it] }
        when (endpoint) {
            Endpoint.Health -> call.reply(Handlers.health())
            Endpoint.Hello -> call.reply(Handlers.hello())
            Endpoint.Stats -> call.reply(Handlers.stats(config.engine, config.model, counters))
            Endpoint.WebSocketWithoutUpgrade -> call.reply(Handlers.webSocketWithoutUpgrade())
            is Endpoint.Rejected -> call.reply(endpoint.reply)
            is Endpoint.Delay -> {
                delay(endpoint.ms)
                call.reply(Handlers.delayed(endpoint.ms))
            }
            // CPU work leaves Netty's event loops, which must stay free for IO; Default has one thread per core,
            // as many as the virtual-thread scheduler's carriers.
            is Endpoint.Cpu -> call.reply(withContext(Dispatchers.Default) { Handlers.cpu(endpoint.iterations) })
            // Blocking code belongs on Dispatchers.IO. Coroutines cannot pin; the traps run so every server answers them.
            is Endpoint.Pin -> {
                runInterruptible(Dispatchers.IO) { endpoint.trap.spring(endpoint.ms) }
                call.reply(Handlers.pinned(endpoint.trap, endpoint.ms))
            }
            is Endpoint.Dashboard -> call.reply(downstream.dashboard(endpoint.userId))
            is Endpoint.Bytes -> call.respond(PayloadContent(endpoint.size))
        }
    }

    /**
     * Netty parses any `HTTP/x.y` and Ktor serves a request without `Host`; RFC 9110 and 9112
     * refuse both (the Jetty servers do so in Jetty's parser). The WebSockets plugin upgrades
     * any handshake its route matches, without a key or with another version.
     */
    private fun refusal(request: ApplicationRequest): Reply? = when {
        request.httpVersion !in HTTP_VERSIONS -> Handlers.versionNotSupported(request.httpVersion)
        request.httpVersion == "HTTP/1.1" && request.headers[HttpHeaders.Host] == null -> Handlers.hostMissing()
        request.uri == "*" && request.httpMethod != HttpMethod.Options -> Handlers.asteriskNotForOptions(request.httpMethod.value)
        else -> WebSocketHandshake.refusal(request.targetPath(), request.httpVersion) { request.headers[it] }
    }

    /**
     * The request target's raw path. RFC 9112 3.2.2: a server MUST accept the absolute-form
     * (`GET http://host/health`), whose path Ktor's `path()` does not take apart (it gave 404).
     */
    private fun ApplicationRequest.targetPath(): String =
        if (ABSOLUTE_FORM.containsMatchIn(uri)) runCatching { URI(uri).rawPath }.getOrNull() ?: path() else path()

    private suspend fun ApplicationCall.reply(reply: Reply) {
        // Ktor guards Upgrade as an engine-only header; a 426 must carry it (RFC 9110 15.5.22).
        reply.headers.forEach { (name, value) -> response.headers.append(name, value, safeOnly = false) }
        respondBytes(reply.body, ContentType.parse(reply.contentType), HttpStatusCode.fromValue(reply.status))
    }

    private companion object {
        /** servers.json's `ktor-netty` alternative that runs calls on the event loop that read them. */
        const val SHARE_WORK_GROUP = "share-work-group"

        val HTTP_VERSIONS = setOf("HTTP/1.0", "HTTP/1.1")
        val ABSOLUTE_FORM = Regex("^[A-Za-z][A-Za-z0-9+.-]*://")
    }

    /** Streams `/bytes` with a known length, chunk by chunk, suspending while the socket is full. */
    private class PayloadContent(private val size: Long) : OutgoingContent.WriteChannelContent() {
        override val contentLength: Long get() = size
        override val contentType: ContentType = ContentType.Application.OctetStream

        override suspend fun writeTo(channel: ByteWriteChannel) {
            PayloadBytes.forEachChunk(size) { bytes, offset, length -> channel.writeFully(bytes, offset, offset + length) }
        }
    }
}
