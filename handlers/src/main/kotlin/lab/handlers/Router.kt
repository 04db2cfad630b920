package lab.handlers

/**
 * Turns a request line into an [Endpoint]: the one place where paths are matched and
 * inputs validated, so every server accepts and rejects exactly the same requests.
 *
 * [path] is the raw (still percent-encoded) path, because the engines disagree on how they
 * decode it; [query] returns a decoded query parameter, which every engine agrees on.
 */
class Router(private val limits: Limits) {
    init {
        // Every server builds its router before serving, so no request waits for the traps' classes to initialize.
        PinTrap.initializeBeforeServing()
    }

    fun route(method: String, path: String, query: (String) -> String?): Endpoint {
        // RFC 9110 9.1: a method the server does not recognize gets 501; 405 is for one it knows and the resource does not allow.
        if (method !in RECOGNIZED_METHODS) {
            return Endpoint.Rejected(Reply.error(501, "this server does not implement the method $method; methods are case-sensitive"))
        }
        val segments = path.removePrefix("/").split('/')
        val endpoint = when {
            segments.size == 1 -> when (segments[0]) {
                "health" -> Endpoint.Health
                "json" -> Endpoint.Hello
                "stats" -> Endpoint.Stats
                "ws" -> Endpoint.WebSocketWithoutUpgrade
                "delay" -> delay(query)
                "cpu" -> cpu(query)
                "bytes" -> bytes(query)
                else -> notFound(path)
            }
            segments.size == 2 && segments[1].isNotEmpty() -> when (segments[0]) {
                "dashboard" -> dashboard(segments[1])
                "pin" -> pin(segments[1], query)
                else -> notFound(path)
            }
            else -> notFound(path)
        }
        val knownPath = !(endpoint is Endpoint.Rejected && endpoint.reply.status == 404)
        return if (knownPath && method != "GET") {
            Endpoint.Rejected(Reply.error(405, "$path only answers GET, not $method"))
        } else {
            endpoint
        }
    }

    private fun notFound(path: String): Endpoint = Endpoint.Rejected(
        Reply.error(404, "no endpoint at $path; the routes are listed in docs/CONFORMANCE.md"),
    )

    private fun dashboard(userId: String): Endpoint =
        if (USER_ID.matches(userId)) {
            Endpoint.Dashboard(userId)
        } else {
            bad("userId must be 1 to 64 letters, digits, '-' or '_', got '$userId'")
        }

    private fun delay(query: (String) -> String?): Endpoint =
        number(query, "ms", 0..limits.maxDelayMs) { Endpoint.Delay(it) }

    private fun cpu(query: (String) -> String?): Endpoint =
        number(query, "iterations", 1L..limits.maxCpuIterations) { Endpoint.Cpu(it.toInt()) }

    private fun bytes(query: (String) -> String?): Endpoint =
        number(query, "size", 0..limits.maxBytes) { Endpoint.Bytes(it) }

    private fun pin(name: String, query: (String) -> String?): Endpoint {
        val trap = PinTrap.bySlug(name)
            ?: return Endpoint.Rejected(
                Reply.error(404, "unknown pinning trap '$name'; known traps: ${PinTrap.entries.joinToString { it.slug }}"),
            )
        if (query("ms") == null) return Endpoint.Pin(trap, PinTrap.DEFAULT_BLOCK_MS)
        return number(query, "ms", 0..limits.maxDelayMs) { Endpoint.Pin(trap, it) }
    }

    private inline fun number(
        query: (String) -> String?,
        name: String,
        range: LongRange,
        endpoint: (Long) -> Endpoint,
    ): Endpoint {
        val raw = query(name) ?: return bad("query parameter '$name' is required: a whole number from ${range.first} to ${range.last}")
        val value = raw.toLongOrNull()
        return if (value != null && value in range) {
            endpoint(value)
        } else {
            bad("query parameter '$name' must be a whole number from ${range.first} to ${range.last}, got '$raw'")
        }
    }

    private fun bad(message: String): Endpoint = Endpoint.Rejected(Reply.error(400, message))

    private companion object {
        val USER_ID = Regex("[A-Za-z0-9_-]{1,64}")

        /** The methods of RFC 9110 9 and PATCH (RFC 5789), exactly as spelt: `get` is none of them. */
        val RECOGNIZED_METHODS = setOf("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH")
    }
}
