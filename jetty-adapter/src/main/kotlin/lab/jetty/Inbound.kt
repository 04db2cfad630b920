package lab.jetty

import java.nio.ByteBuffer

/** What Jetty's WebSocket callbacks hand to a socket's own task: a frame to echo, or the end. */
internal sealed interface Inbound {
    class Text(val text: String) : Inbound

    class Binary(val bytes: ByteBuffer) : Inbound

    data object Closed : Inbound

    companion object {
        /** Jetty reuses a binary frame's buffer once its callback completes, so the task gets its own copy. */
        fun binaryCopy(payload: ByteBuffer): Binary = Binary(ByteBuffer.allocate(payload.remaining()).put(payload).flip())
    }
}
