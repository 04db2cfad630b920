package lab.clients.probe

import lab.handlers.PayloadBytes

/** A sink that compares every byte with the `/bytes` payload; [exact] once the body has ended with [expectedBytes]. */
class PayloadCheck(private val expectedBytes: Long) : BodySink {
    private var position = 0L
    private var firstMismatch: Long? = null

    override fun accept(bytes: ByteArray, offset: Int, length: Int) {
        if (firstMismatch == null) {
            for (i in 0 until length) {
                if (bytes[offset + i] != PayloadBytes.byteAt(position + i)) {
                    firstMismatch = position + i
                    break
                }
            }
        }
        position += length
    }

    val exact get() = firstMismatch == null && position == expectedBytes

    fun describe() = when {
        firstMismatch != null -> "byte $firstMismatch differs from the payload"
        position != expectedBytes -> "received $position bytes of $expectedBytes"
        else -> "byte-exact"
    }
}
