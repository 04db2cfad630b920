package lab.ktorcoroutine

import io.ktor.websocket.CloseReason
import io.ktor.websocket.Frame
import io.ktor.websocket.FrameTooBigException
import io.ktor.websocket.ProtocolViolationException
import io.ktor.websocket.WebSocketSession
import kotlinx.coroutines.channels.ClosedSendChannelException
import kotlinx.coroutines.delay
import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction

/**
 * The `/ws` echo on Ktor's raw session, which hands over every frame as it arrives: fragments,
 * pings and the peer's close. Ktor's default session would answer those itself, and it lets
 * through what RFC 6455 forbids (reserved bits, invalid close codes, invalid UTF-8), so this
 * loop applies the RFC's rules, as Jetty's session does for the other servers. Frames Ktor's own
 * reader refuses (a reserved opcode, a control frame over 125 bytes or fragmented, a stray
 * continuation, a frame over the limit) it answers with 1002 or 1009 too, which this loop makes sure of,
 * and [letLastFrameOut] lets it go out before the connection ends.
 */
internal suspend fun WebSocketSession.echoPerRfc(maxMessageBytes: Int) {
    val answer = try {
        echoUntilClose(maxMessageBytes)
    } catch (e: ProtocolViolationException) {
        close(CloseReason.Codes.PROTOCOL_ERROR)
    } catch (e: FrameTooBigException) {
        close(CloseReason.Codes.TOO_BIG)
    } catch (e: ClosedSendChannelException) {
        // Ktor's reader, reading ahead, refused a later frame and its close went out before this
        // loop's echo, which shut the writer's queue: that close is the answer.
        null
    }
    // Ktor's session may have queued that close itself (it tries, and fails when an echo fills the
    // one-frame queue); a second one finds the queue closed, or is dropped after the first.
    try {
        answer?.let { outgoing.send(it) }
    } catch (e: ClosedSendChannelException) {
        // the close is out already, or the peer has gone
    }
    flush()
}

/**
 * Keeps the connection until the session's last frame has gone out: call it once the socket's
 * task is over, outside its count of open sockets, which the close ended (as on Jetty's servers).
 */
internal suspend fun letLastFrameOut() = delay(CLOSE_LINGER_MS)

/**
 * How long the session outlives its last frame. Once the handler returns, Ktor's upgrade tears
 * the connection down, and the last frame, already flushed by the session's writer, can still be
 * on its way to Netty, and a raw client on loopback saw the close frame lost (docs/CONFORMANCE.md,
 * "What the suites measured"). It costs only a closing socket's last moment.
 */
private const val CLOSE_LINGER_MS = 100L

/** Echoes messages until the peer closes or breaks a rule; returns the close frame to answer with, or null if none is due. */
private suspend fun WebSocketSession.echoUntilClose(maxMessageBytes: Int): Frame.Close? {
    // Made only when a message comes in fragments: an idle socket holds no buffer.
    var fragments: ByteArrayOutputStream? = null
    for (frame in incoming) {
        // No extension is negotiated (WebSocketHandshake.extensions: none), so no reserved bit may be set (5.2).
        if (frame.rsv1 || frame.rsv2 || frame.rsv3) return close(CloseReason.Codes.PROTOCOL_ERROR)
        when (frame) {
            is Frame.Ping -> outgoing.send(Frame.Pong(frame.data))
            is Frame.Pong -> Unit
            is Frame.Close -> return echoClose(frame.data)
            // Ktor's reader has checked the order, and a continuation carries its message's type.
            is Frame.Text, is Frame.Binary -> {
                if ((fragments?.size() ?: 0) + frame.data.size > maxMessageBytes) return close(CloseReason.Codes.TOO_BIG)
                if (!frame.fin || fragments != null) {
                    fragments = (fragments ?: ByteArrayOutputStream()).apply { write(frame.data) }
                    if (!frame.fin) continue
                }
                val message = fragments?.toByteArray() ?: frame.data
                fragments = null
                val text = frame is Frame.Text
                if (text && !isUtf8(message)) return close(CloseReason.Codes.NOT_CONSISTENT)
                outgoing.send(if (text) Frame.Text(true, message) else Frame.Binary(true, message))
            }
        }
    }
    return null
}

/** The answer to the peer's close (5.5.1, 7.4): its own code back, or a failure if its payload breaks the rules. */
private fun echoClose(payload: ByteArray): Frame.Close {
    if (payload.isEmpty()) return Frame.Close()
    if (payload.size == 1) return close(CloseReason.Codes.PROTOCOL_ERROR)
    val code = ((payload[0].toInt() and 0xff) shl 8) or (payload[1].toInt() and 0xff)
    return when {
        !isSendableCode(code) -> close(CloseReason.Codes.PROTOCOL_ERROR)
        !isUtf8(payload.copyOfRange(2, payload.size)) -> close(CloseReason.Codes.NOT_CONSISTENT)
        else -> Frame.Close(CloseReason(code.toShort(), ""))
    }
}

/**
 * Codes an endpoint may put in a close frame (7.4.1, 7.4.2, and IANA's registry since): the
 * defined ones but 1004 (reserved), 1005 and 1006 (never sent, only reported) and 1015 (TLS),
 * and 3000-4999 for libraries and applications.
 */
private fun isSendableCode(code: Int): Boolean = code in 1000..1003 || code in 1007..1014 || code in 3000..4999

private fun close(code: CloseReason.Codes) = Frame.Close(CloseReason(code, ""))

private fun isUtf8(bytes: ByteArray): Boolean = try {
    Charsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
    true
} catch (e: CharacterCodingException) {
    false
}
