package lab.handlers

/**
 * What a server writes when a request's head has not arrived within [Limits.requestHeadTimeoutMs]
 * of its first byte: [Handlers.requestHeadTimedOut] as the bytes of a whole HTTP/1.1 response,
 * after which it closes the connection.
 *
 * Neither engine has such a bound, so each server's engine adapter keeps the clock itself, below
 * the engine's HTTP handling, where there is no request yet to respond to. It writes these bytes
 * as they are, which also makes the answer identical on every server.
 */
object RequestHeadTimeout {
    fun answer(timeoutMs: Long): ByteArray {
        val reply = Handlers.requestHeadTimedOut(timeoutMs)
        val head = buildString {
            append("HTTP/1.1 ${reply.status} Request Timeout\r\n")
            append("Content-Type: ${reply.contentType}\r\n")
            append("Content-Length: ${reply.body.size}\r\n")
            reply.headers.forEach { (name, value) -> append("$name: $value\r\n") }
            append("\r\n")
        }
        return head.toByteArray(Charsets.US_ASCII) + reply.body
    }
}
