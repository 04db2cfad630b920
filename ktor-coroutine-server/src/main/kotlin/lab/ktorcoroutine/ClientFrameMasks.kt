package lab.ktorcoroutine

import io.netty.buffer.ByteBuf
import io.netty.buffer.Unpooled
import io.netty.channel.ChannelDuplexHandler
import io.netty.channel.ChannelFutureListener
import io.netty.channel.ChannelHandlerContext
import io.netty.channel.ChannelInboundHandlerAdapter
import io.netty.channel.ChannelPipeline
import io.netty.channel.ChannelPromise
import io.netty.handler.codec.http.HttpResponse
import io.netty.handler.codec.http.HttpResponseStatus
import io.netty.util.ReferenceCountUtil

/**
 * RFC 6455 5.1: a server MUST close the connection when a client sends an unmasked frame.
 * Ktor's frame reader unmasks a masked frame and takes an unmasked one as it is, and the frame it
 * hands the session does not say which it was, so the server's own code could not tell: it
 * echoed an unmasked frame.
 *
 * So the mask bit is read where the bytes are still as they came: a handler at the front of the
 * connection's pipeline, ahead of Ktor, walks the client's frames from the answered upgrade on,
 * reading each frame's header and skipping its payload, and passes the bytes on untouched. At
 * the first frame without a mask it closes the socket with 1002 (protocol error), as Jetty does,
 * and Ktor sees nothing more of that read: masked frames that came in the same read ahead of the
 * unmasked one get no echo, where Jetty echoes them before it closes (handing them to Ktor would
 * not help: the close would still go out before their echoes). RFC 6455 asks only for the close.
 * Every connection carries the two handlers and a few fields; an upgraded socket's reads each
 * cost a walk over the frame headers in them. The close goes out at the front of the pipeline,
 * so it could follow part of a large frame Ktor is still writing; the connection ends there. A client that sends frames before the server's 101 has come breaks
 * RFC 6455 4.1 already: bytes that arrive with the handshake reach Ktor unwalked.
 */
internal class ClientFrameMasks private constructor() {
    private var upgraded = false
    private var failed = false

    /** Bytes of the current frame's header read so far, and the header's length once known. */
    private val header = ByteArray(MAX_HEADER_BYTES)
    private var headerRead = 0
    private var headerLength = 2

    /** Payload bytes of the current frame still to skip. */
    private var payloadLeft = 0L

    /** At the front of the pipeline: the bytes as they came off the socket. */
    private inner class Walk : ChannelInboundHandlerAdapter() {
        override fun channelRead(ctx: ChannelHandlerContext, msg: Any) {
            if (failed) {
                ReferenceCountUtil.release(msg)
                return
            }
            if (upgraded && msg is ByteBuf && !masked(msg)) {
                failed = true
                ReferenceCountUtil.release(msg)
                ctx.writeAndFlush(Unpooled.wrappedBuffer(CLOSE_PROTOCOL_ERROR)).addListener(ChannelFutureListener.CLOSE)
                return
            }
            ctx.fireChannelRead(msg)
        }
    }

    /** Behind the HTTP codec: sees the upgrade answered. */
    private inner class Upgrade : ChannelDuplexHandler() {
        override fun write(ctx: ChannelHandlerContext, msg: Any, promise: ChannelPromise) {
            if ((msg as? HttpResponse)?.status() == HttpResponseStatus.SWITCHING_PROTOCOLS) upgraded = true
            ctx.write(msg, promise)
        }
    }

    /** Walks [bytes] without consuming them; false at a client frame without a mask. */
    private fun masked(bytes: ByteBuf): Boolean {
        var index = bytes.readerIndex()
        val end = bytes.writerIndex()
        while (index < end) {
            if (payloadLeft > 0) {
                val skip = minOf(payloadLeft, (end - index).toLong())
                payloadLeft -= skip
                index += skip.toInt()
                continue
            }
            header[headerRead++] = bytes.getByte(index++)
            if (headerRead == 2) {
                val second = header[1].toInt() and 0xFF
                if (second and MASK_BIT == 0) return false
                headerLength = 2 + MASK_KEY_BYTES + when (second and 0x7F) {
                    126 -> 2
                    127 -> 8
                    else -> 0
                }
            }
            if (headerRead == headerLength) {
                payloadLeft = payloadLength()
                headerRead = 0
                headerLength = 2
            }
        }
        return true
    }

    private fun payloadLength(): Long = when (val short = header[1].toInt() and 0x7F) {
        126 -> ((header[2].toLong() and 0xFF) shl 8) or (header[3].toLong() and 0xFF)
        127 -> (0 until 8).fold(0L) { length, i -> (length shl 8) or (header[2 + i].toLong() and 0xFF) }
        else -> short.toLong()
    }

    companion object {
        private const val MASK_BIT = 0x80
        private const val MASK_KEY_BYTES = 4
        private const val MAX_HEADER_BYTES = 2 + 8 + MASK_KEY_BYTES

        /** A close frame with code 1002 (protocol error), as a server sends it: unmasked. */
        private val CLOSE_PROTOCOL_ERROR = byteArrayOf(0x88.toByte(), 0x02, 0x03, 0xEA.toByte())

        /** Puts the walk at the front of the pipeline and the upgrade's watch behind Ktor's `codec`. */
        fun install(pipeline: ChannelPipeline) {
            if (pipeline.get("codec") == null) return
            val masks = ClientFrameMasks()
            pipeline.addFirst("client-frame-masks", masks.Walk())
            pipeline.addAfter("codec", "client-frame-upgrade", masks.Upgrade())
        }
    }
}
