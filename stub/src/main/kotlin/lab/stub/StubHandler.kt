package lab.stub

import io.netty.buffer.Unpooled
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.SimpleChannelInboundHandler
import io.netty.channel.socket.SocketChannel
import io.netty.handler.codec.http.DefaultFullHttpResponse
import io.netty.handler.codec.http.DefaultHttpContent
import io.netty.handler.codec.http.DefaultHttpResponse
import io.netty.handler.codec.http.FullHttpRequest
import io.netty.handler.codec.http.HttpHeaderNames
import io.netty.handler.codec.http.HttpResponseStatus
import io.netty.handler.codec.http.HttpUtil
import io.netty.handler.codec.http.HttpVersion
import io.netty.handler.codec.http.QueryStringDecoder
import io.netty.util.concurrent.ScheduledFuture
import lab.handlers.ContentTypes
import lab.handlers.LabJson
import lab.handlers.Reply
import java.util.concurrent.TimeUnit

/**
 * One per connection. A downstream call is answered after the latency on the connection's
 * event loop, without holding a thread; if the connection closes first, the call is
 * counted cancelled. Closing the connection is the only way an HTTP/1.1 client can cancel
 * a call, so this is exactly what a server's cancellation looks like from here.
 */
internal class StubHandler(
    private val latencyMs: Long,
    private val counters: StubCounters,
) : SimpleChannelInboundHandler<FullHttpRequest>() {
    private var pending: ScheduledFuture<*>? = null
    private var carriedCall = false

    override fun channelRead0(ctx: ChannelHandlerContext, request: FullHttpRequest) {
        val keepAlive = HttpUtil.isKeepAlive(request)
        val path = QueryStringDecoder(request.uri()).path()
        val segments = path.removePrefix("/").split('/')
        when {
            path == "/health" -> respond(ctx, keepAlive, Reply.text(200, "ok"))
            path == "/stats" -> respond(ctx, keepAlive, LabJson.reply(200, counters.snapshot()))
            segments.size == 2 && segments[0] == "profile" -> when (val fault = StubFault.forUser(segments[1])) {
                null -> later(ctx, keepAlive) { LabJson.reply(200, StubAnswers.profile(segments[1])) }
                else -> fail(ctx, keepAlive, fault)
            }
            segments.size == 2 && segments[0] == "metrics" -> later(ctx, keepAlive) { LabJson.reply(200, StubAnswers.metrics(segments[1])) }
            else -> respond(ctx, keepAlive, Reply.error(404, "the stub answers /profile/{userId}, /metrics/{userId}, /stats and /health"))
        }
    }

    private fun later(ctx: ChannelHandlerContext, keepAlive: Boolean, reply: () -> Reply) {
        countConnection()
        counters.started.incrementAndGet()
        pending = ctx.executor().schedule({
            pending = null
            counters.finished.incrementAndGet()
            respond(ctx, keepAlive, reply())
        }, latencyMs, TimeUnit.MILLISECONDS)
    }

    private fun countConnection() {
        if (!carriedCall) counters.connections.incrementAndGet()
        carriedCall = true
    }

    private fun fail(ctx: ChannelHandlerContext, keepAlive: Boolean, fault: StubFault) {
        countConnection()
        when (fault) {
            StubFault.SERVER_ERROR -> respond(ctx, keepAlive, Reply.error(500, "the stub failed as asked: ${fault.userId}"))
            StubFault.NOT_FOUND -> respond(ctx, keepAlive, Reply.error(404, "the stub knows no ${fault.userId}, as asked"))
            StubFault.NOT_JSON -> respond(ctx, keepAlive, Reply.text(200, "<html>an error page where JSON belongs</html>"))
            StubFault.CUT_SHORT -> {
                val response = DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK)
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, ContentTypes.JSON).setInt(HttpHeaderNames.CONTENT_LENGTH, 1_000)
                ctx.write(response)
                ctx.writeAndFlush(DefaultHttpContent(Unpooled.wrappedBuffer("{\"userId\":".toByteArray()))).addListener { ctx.close() }
            }
            StubFault.RESET -> {
                // A zero linger turns the close into a reset.
                (ctx.channel() as SocketChannel).config().setSoLinger(0)
                ctx.close()
            }
            // The caller's connection stays open, unanswered, until the caller gives up and closes it.
            StubFault.HANG -> Unit
        }
    }

    override fun channelInactive(ctx: ChannelHandlerContext) {
        pending?.let {
            it.cancel(false)
            pending = null
            counters.cancelled.incrementAndGet()
        }
        super.channelInactive(ctx)
    }

    @Deprecated("Netty deprecates it on ChannelHandler, not on inbound handlers")
    override fun exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable) {
        ctx.close()
    }

    private fun respond(ctx: ChannelHandlerContext, keepAlive: Boolean, reply: Reply) {
        val response =
            DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(reply.status), Unpooled.wrappedBuffer(reply.body))
        response.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, reply.contentType)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body.size)
        HttpUtil.setKeepAlive(response, keepAlive)
        val written = ctx.writeAndFlush(response)
        if (!keepAlive) written.addListener { ctx.close() }
    }
}
