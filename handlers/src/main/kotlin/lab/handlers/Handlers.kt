package lab.handlers

/**
 * The endpoint logic, as plain functions from validated input to a [Reply].
 *
 * Waiting (for a delay, a downstream call or a pinning trap) is the one thing the servers
 * do themselves, because *how* they wait is the thread model under test. Everything before
 * and after the wait is here.
 */
object Handlers {
    fun health(): Reply = Reply.text(200, "ok")

    fun hello(): Reply = LabJson.reply(200, Greeting())

    fun cpu(iterations: Int): Reply = LabJson.reply(200, CpuResult(iterations, CpuWork.digest(iterations)))

    fun delayed(ms: Long): Reply = LabJson.reply(200, DelayResult(ms))

    fun pinned(trap: PinTrap, ms: Long): Reply = LabJson.reply(200, PinResult(trap.slug, ms))

    fun stats(engine: String, model: String, counters: LiveCounters): Reply = LabJson.reply(200, counters.snapshot(engine, model))

    // RFC 9110 15.5.22: a 426 names the protocol to upgrade to.
    fun webSocketWithoutUpgrade(): Reply =
        Reply.error(426, "/ws is a WebSocket endpoint: send an Upgrade: websocket request", "Upgrade" to "websocket")

    /** RFC 9110 15.6.6: a major version other than 1 is not spoken here. */
    fun versionNotSupported(version: String): Reply = Reply.error(505, "this server speaks HTTP/1.0 and HTTP/1.1, not $version")

    /** RFC 9112 3.2.4: a request target of `*` is for OPTIONS alone. */
    fun asteriskNotForOptions(method: String): Reply = Reply.error(400, "the request target * is for OPTIONS only, not $method")

    /**
     * A request head the engine's parser could not parse, or one over its bound ([tooLarge]: RFC
     * 6585 5's 431); the server closes the connection after it (RFC 9112 6.3: its framing cannot be trusted).
     */
    fun unparsableHead(tooLarge: Boolean, why: String): Reply =
        if (tooLarge) {
            Reply.error(431, "the request's head is larger than this server takes: $why", "Connection" to "close")
        } else {
            Reply.error(400, "the request could not be parsed: $why", "Connection" to "close")
        }

    /** RFC 9112 3.2: an HTTP/1.1 request must name its host. */
    fun hostMissing(): Reply = Reply.error(400, "an HTTP/1.1 request needs a Host header")

    /** RFC 9110 15.5.9: a head that did not arrive within [Limits.requestHeadTimeoutMs]; the server closes the connection. */
    fun requestHeadTimedOut(timeoutMs: Long): Reply =
        Reply.error(408, "the request's head did not arrive within $timeoutMs ms of its first byte", "Connection" to "close")

    /** The answer when the server's bounded thread pool has no thread left for a request. */
    fun overloaded(): Reply = Reply.error(503, "server thread pool exhausted; retry later or start the server with more --threads")

    /** Combines the two downstream bodies; a body that is not the stub's JSON is the downstream's fault. */
    fun dashboard(userId: String, profileBody: String, metricsBody: String): Reply = try {
        val profile = LabJson.decode<Profile>(profileBody)
        val metrics = LabJson.decode<Metrics>(metricsBody)
        LabJson.reply(200, Dashboard(userId, profile, metrics))
    } catch (e: IllegalArgumentException) {
        // SerializationException is one of these too.
        Reply.error(502, "the downstream service answered /dashboard/$userId with a body that is not its JSON")
    }

    /**
     * A downstream call failed: [status] is what it answered instead of 200, or null when it
     * gave no complete answer (refused, reset, or cut short). The text names no client
     * exception, since the servers' clients differ and their answers must not.
     */
    fun downstreamFailed(downstreamUrl: String, status: Int?): Reply = Reply.error(
        502,
        if (status == null) {
            "the downstream service at $downstreamUrl gave no complete answer; is it running? `make stub` starts it"
        } else {
            "the downstream service at $downstreamUrl answered $status"
        },
    )

    /** A downstream call took longer than [Limits.downstreamTimeoutMs] and was abandoned: the gateway's timeout, 504. */
    fun downstreamTimedOut(downstreamUrl: String, timeoutMs: Long): Reply =
        Reply.error(504, "the downstream service at $downstreamUrl did not answer within $timeoutMs ms")
}
