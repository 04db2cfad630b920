package lab.ktorcoroutine

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
import io.netty.util.ByteProcessor
import io.netty.util.ReferenceCountUtil
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
 *
 * As on Jetty, where a connection's next head is parsed only once the last answer is out, a head
 * is timed from its first bytes that come while no answer is owed: the bytes of a pipelined head
 * that come with an earlier request, or while its answer is going out, start nothing, and the
 * clock starts at the head's next bytes. Blank lines ahead of a request line, which the codec
 * skips, start nothing either.
 */
internal class RequestHeadClock private constructor(private val timeoutMs: Long, private val answer: ByteArray) {
    private enum class Phase { BETWEEN_REQUESTS, HEAD, REST_OF_REQUEST, TIMED_OUT }

    private var phase = Phase.BETWEEN_REQUESTS
    private var headBeganNs = 0L
    private var expiry: ScheduledFuture<*>? = null

    /** Requests decoded and not yet answered in full. */
    private var answersOwed = 0

    private inner class Start : ChannelInboundHandlerAdapter() {
        override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
            if (phase == Phase.TIMED_OUT) {
                // The 408 is on its way and the connection closing: what comes now is never a request.
                ReferenceCountUtil.release(msg)
                return
            }
            if (phase == Phase.BETWEEN_REQUESTS && answersOwed == 0 && msg is ByteBuf &&
                msg.forEachByte(ByteProcessor.FIND_NON_CRLF) >= 0
            ) {
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
        phase = Phase.TIMED_OUT
        // Written ahead of the codec, as the bytes they are: there is no request to answer yet.
        ctx.writeAndFlush(Unpooled.wrappedBuffer(answer)).addListener(ChannelFutureListener.CLOSE)
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
            // Ktor calls the same hook for HTTP/2, whose pipeline has no such codec (and this lab does not speak it).
            if (pipeline.get("codec") == null) return
            val clock = RequestHeadClock(timeoutMs, answer)
            pipeline.addBefore("codec", START, clock.Start())
            pipeline.addAfter("codec", STOP, clock.Stop())
        }
    }
}
