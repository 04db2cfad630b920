package lab.verify

import lab.support.sendWithin
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

/** What a server answered: the three things the contract fixes. */
data class Answer(val status: Int, val contentType: String?, val body: ByteArray) {
    val text: String get() = body.decodeToString()

    override fun equals(other: Any?) =
        other is Answer && status == other.status && contentType == other.contentType && body.contentEquals(other.body)

    override fun hashCode() = status * 31 + body.contentHashCode()

    override fun toString() = "$status $contentType ${if (body.size > 300) "${body.size} bytes" else "'$text'"}"

    companion object {
        /** Sends [method] [target] to the server at [base] with [http] and reads the whole answer. */
        fun of(http: HttpClient, base: URI, target: String, method: String = "GET"): Answer {
            val request = HttpRequest.newBuilder(base.resolve(target))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(30))
                .build()
            val response = http.sendWithin(request, HttpResponse.BodyHandlers.ofByteArray())
            return Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null), response.body())
        }
    }
}
