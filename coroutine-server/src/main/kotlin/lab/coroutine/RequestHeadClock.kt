package lab.coroutine

import io.netty.buffer.ByteBuf
import io.netty.buffer.Unpooled
import io.netty.channel.ChannelDuplexHandler
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelInboundHandlerAdapter
import io.netty.channel.ChannelPipeline
import io.netty.channel.ChannelPromise
import io.netty.handler.codec.http.HttpRequest
import io.netty.handler.codec.http.HttpResponse
import io.netty.handler.codec.http.HttpResponseStatus
import io.netty.handler.codec.http.HttpStatusClass
import io.netty.handler.codec.http.LastHttpContent
import io.netty.util.concurrent.ScheduledFuture
import java.util.concurrent.TimeUnit

/**
 * [lab.handlers.Limits.requestHeadTimeoutMs] on Netty, which has no such bound: its read timeout
 * restarts with every byte, so a client that trickles its head never trips it.
 *
 * One clock per connection, kept by two handlers around Ktor's HTTP codec: [Start], ahead of it,
 * sees a request's first bytes; [Stop], behind it, sees the decoded head, the end of the request,
 * and the answers going out. Both run on the connection's event loop, as does the timer, so the
 * clock is never touched by two threads. An answered upgrade ends the timing for good: the bytes
 * after it are WebSocket frames.
 */
internal class RequestHeadClock private constructor(private val timeoutMs: Long, private val answer: ByteArray) {
    private enum class Phase { BETWEEN_REQUESTS, HEAD, REST_OF_REQUEST }

    private var phase = Phase.BETWEEN_REQUESTS
    private var headBeganNs = 0L
    private var expiry: ScheduledFuture<*>? = null

    /** Requests decoded and not yet answered in full: the 408 must not cut into an answer on its way out. */
    private var answersOwed = 0

    private inner class Start : ChannelInboundHandlerAdapter() {
        override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
            if (phase == Phase.BETWEEN_REQUESTS && msg is ByteBuf && msg.isReadable) {
                phase = Phase.HEAD
                headBeganNs = System.nanoTime()
            }
            ctx.fireChannelRead(msg)
            // The codec has decoded what this read held: most heads arrive whole, and need no timer.
            if (phase == Phase.HEAD && expiry == null) {
                val leftMs = timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - headBeganNs)
                expiry = ctx.executor().schedule({ expire(ctx) }, leftMs.coerceAtLeast(0), TimeUnit.MILLISECONDS)
            }
        }

        override fun channelInactive(ctx: ChannelHandlerContext) {
            stopTimer()
            ctx.fireChannelInactive()
        }
    }

    private inner class Stop : ChannelDuplexHandler() {
        override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
            if (msg is HttpRequest) {
                phase = Phase.REST_OF_REQUEST
                answersOwed++
                stopTimer()
            }
            if (msg is LastHttpContent) phase = Phase.BETWEEN_REQUESTS
            ctx.fireChannelRead(msg)
        }

        override fun write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise) {
            val status = (msg as? HttpResponse)?.status()
            // A 100 Continue is not the answer, though Netty sends it as a whole message.
            if (msg is LastHttpContent && status?.codeClass() != HttpStatusClass.INFORMATIONAL) answersOwed--
            ctx.write(msg, promise)
            if (status == HttpResponseStatus.SWITCHING_PROTOCOLS) stopTiming(ctx.pipeline())
        }
    }

    private fun expire(ctx: ChannelHandlerContext) {
        expiry = null
        if (phase != Phase.HEAD) return
        if (answersOwed == 0) {
            // Written ahead of the codec, as the bytes they are: there is no request to answer yet.
            ctx.writeAndFlush(Unpooled.wrappedBuffer(answer)).addListener(ChannelFutureListener.CLOSE)
        } else {
            ctx.close()
        }
    }

    private fun stopTimer() {
        expiry?.cancel(false)
        expiry = null
    }

    private fun stopTiming(pipeline: ChannelPipeline) {
        stopTimer()
        pipeline.remove(START)
        pipeline.remove(STOP)
    }

    companion object {
        private const val START = "head-clock-start"
        private const val STOP = "head-clock-stop"

        /** Puts a clock around the pipeline's `codec`, the name Ktor gives Netty's HTTP/1.1 codec. */
        fun install(pipeline: ChannelPipeline, timeoutMs: Long, answer: ByteArray) {
            val clock = RequestHeadClock(timeoutMs, answer)
            pipeline.addBefore("codec", START, clock.Start())
            pipeline.addAfter("codec", STOP, clock.Stop())
        }
    }
}
