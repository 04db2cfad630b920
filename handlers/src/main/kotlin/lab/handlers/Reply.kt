package lab.handlers

/**
 * A complete answer from the handler core: what every server writes back, byte for byte.
 *
 * Servers never build bodies or pick content types themselves; they copy these fields
 * onto their engine's response, which is what makes the servers' answers identical.
 */
class Reply(
    val status: Int,
    val contentType: String,
    val body: ByteArray,
    /** Headers an answer must carry besides its type and length, such as a 426's `Upgrade`. */
    val headers: List<Pair<String, String>> = emptyList(),
) {
    override fun toString(): String = "Reply($status, $contentType, ${body.size} bytes)"

    companion object {
        fun text(status: Int, text: String): Reply = Reply(status, ContentTypes.TEXT, text.toByteArray())

        fun error(status: Int, message: String, vararg headers: Pair<String, String>): Reply =
            LabJson.reply(status, ErrorBody(message), *headers)
    }
}

/** The exact `Content-Type` header values of the contract. */
object ContentTypes {
    const val TEXT = "text/plain; charset=utf-8"
    const val JSON = "application/json"
    const val BYTES = "application/octet-stream"
}
