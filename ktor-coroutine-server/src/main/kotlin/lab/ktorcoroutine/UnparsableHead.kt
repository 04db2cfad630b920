package lab.ktorcoroutine

import io.netty.buffer.Unpooled
import io.netty.channel.ChannelDuplexHandler
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelPipeline
import io.netty.channel.ChannelPromise
import io.netty.handler.codec.TooLongFrameException
import io.netty.handler.codec.http.DefaultFullHttpResponse
import io.netty.handler.codec.http.HttpContent
import io.netty.handler.codec.http.HttpHeaderNames
import io.netty.handler.codec.http.HttpObject
import io.netty.handler.codec.http.HttpRequest
import io.netty.handler.codec.http.HttpResponse
import io.netty.handler.codec.http.HttpResponseStatus
import io.netty.handler.codec.http.HttpStatusClass
import io.netty.handler.codec.http.HttpVersion
import io.netty.handler.codec.http.LastHttpContent
import io.netty.handler.codec.http.TooLongHttpHeaderException
import io.netty.util.ReferenceCountUtil
import lab.handlers.Handlers
import lab.handlers.Reply

/**
 * What Netty's HTTP decoder could not parse, answered by the server, which then closes the
 * connection, as RFC 9112 says it must and as Jetty does.
 *
 * Ktor answered a head the decoder failed with 400 and kept the connection open: after a request
 * whose body's length it cannot trust (both `Content-Length` and `Transfer-Encoding`, or a
 * `Transfer-Encoding` whose last coding is not chunked), RFC 9112 6.1 and 6.3 say the server MUST
 * close it, so that the bytes behind the body are never read as a request. And it answered a head
 * over Netty's bound with 400 where RFC 6585 5 gives 431. A body whose chunks do not parse ends
 * the connection once the request's answer is out.
 *
 * Behind the codec, it sees each decoded message and each answer going out, on the connection's
 * event loop. A failed head never reaches Ktor.
 */
internal class UnparsableHead private constructor() : ChannelDuplexHandler() {
    /** Requests passed on and not yet answered in full. */
    private var answersOwed = 0
    private var closeWhenAnswered = false
    private var closing = false

    /** The answer to a failed head that came behind requests still being answered: it goes out after theirs (RFC 9112 9.3.2). */
    private var answerWhenAnswered: Reply? = null

    override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
        if (closing) {
            // The decoder discards what follows a failure; anything that still comes is not a request.
            ReferenceCountUtil.release(msg)
            return
        }
        val failure = (msg as? HttpObject)?.decoderResult()?.cause()
        when {
            failure != null && msg is HttpRequest -> {
                ReferenceCountUtil.release(msg)
                closing = true
                val reply = Handlers.unparsableHead(tooLarge = failure is TooLongHttpHeaderException, why = reason(failure))
                // Ktor answers pipelined requests in order; this answer must not overtake theirs.
                if (answersOwed == 0) answerAndClose(ctx, reply) else answerWhenAnswered = reply
            }
            failure != null && msg is HttpContent -> {
                ReferenceCountUtil.release(msg)
                closing = true
                if (answersOwed == 0) ctx.close() else closeWhenAnswered = true
            }
            else -> {
                if (msg is HttpRequest) answersOwed++
                ctx.fireChannelRead(msg)
            }
        }
    }

    override fun write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise) {
        val informational = (msg as? HttpResponse)?.status()?.codeClass() == HttpStatusClass.INFORMATIONAL
        val answered = msg is LastHttpContent && !informational && answersOwed > 0
        if (answered) answersOwed--
        ctx.write(msg, promise)
        if (!answered || answersOwed > 0) return
        answerWhenAnswered?.let { reply ->
            answerWhenAnswered = null
            answerAndClose(ctx, reply)
        }
        if (closeWhenAnswered) promise.addListener(ChannelFutureListener.CLOSE)
    }

    private fun answerAndClose(ctx: ChannelHandlerContext, reply: Reply) {
        ctx.writeAndFlush(response(reply)).addListener(ChannelFutureListener.CLOSE)
    }

    private fun reason(failure: Throwable): String =
        if (failure is TooLongFrameException) "over Netty's bound" else failure.message ?: failure.javaClass.simpleName

    private fun response(reply: Reply) =
        DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(reply.status), Unpooled.wrappedBuffer(reply.body)).apply {
            headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType)
            headers().set(HttpHeaderNames.CONTENT_LENGTH, reply.body.size)
            reply.headers.forEach { (name, value) -> headers().set(name, value) }
        }

    companion object {
        /** Puts the handler right behind the pipeline's `codec`, the name Ktor gives Netty's HTTP/1.1 codec. */
        fun install(pipeline: ChannelPipeline) {
            if (pipeline.get("codec") == null) return
            pipeline.addAfter("codec", "unparsable-head", UnparsableHead())
        }
    }
}
