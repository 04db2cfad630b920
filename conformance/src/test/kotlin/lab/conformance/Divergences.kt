package lab.conformance

/**
 * Where an engine answers an [AbuseCase] otherwise than its RFC, and a server's own code cannot
 * change that, declared once: the answer, the library and version that give it, and why the
 * server cannot. [ProtocolAbuseTest] holds the engine's servers to the declared answer, so a
 * library upgrade that changes it fails the test and is noticed. README's findings list them.
 */
object Divergences {
    /**
     * [pending]: the server's own code could give the RFC's answer and does not yet; the
     * answer is held here so that the suite shows what is left, and nothing moves unnoticed.
     */
    data class Divergence(
        val engine: String,
        val case: String,
        /** One answer, or several where the engine's timing picks one. */
        val answers: List<List<String>>,
        val library: String,
        val reason: String,
        val pending: Boolean = false,
    )

    private fun divergence(engine: String, case: String, answer: List<String>, library: String, reason: String, pending: Boolean = false) =
        Divergence(engine, case, listOf(answer), library, reason, pending)

    private const val KTOR = "Ktor 3.5.2 on Netty 4.2.20"
    private const val JETTY = "Jetty 12.1.12"
    private val ECHOED_THEN_CLOSED = listOf("close 1000", "dropped")

    private fun ktorPending(case: String, answer: List<String>, what: String) =
        divergence(
            "ktor-netty",
            case,
            answer,
            KTOR,
            "$what; the server could check it itself (webSocketRaw or an interceptor), not done yet",
            true,
        )

    /**
     * Ktor answers these violations with a 1002 close frame and closes the connection without
     * waiting for that frame to go out: the client gets the frame, or only the connection's end.
     */
    private fun ktorRacingClose(case: String) = Divergence(
        "ktor-netty",
        case,
        listOf(listOf("close 1002", "dropped"), listOf("dropped")),
        KTOR,
        "Ktor's frame reader fails the connection with 1002 but closes it without waiting for the close frame to go out, " +
            "so by timing the client sees the frame or only the connection's end",
    )

    val all: List<Divergence> = listOf(
        ktorRacingClose("ws: reserved data opcode 3"),
        ktorRacingClose("ws: reserved control opcode 11"),
        ktorRacingClose("ws: a ping of 126 bytes"),
        ktorRacingClose("ws: a fragmented ping"),
        ktorRacingClose("ws: a continuation with no message begun"),
        ktorRacingClose("ws: a new message amid a fragmented one"),
        divergence(
            "ktor-netty",
            "http: a header of 64 KB",
            listOf("status 400"),
            KTOR,
            "Netty's request decoder refuses a head over its 8 KB limit before Ktor runs any of the server's code, " +
                "and Ktor answers its failure with 400",
        ),
        divergence(
            "ktor-netty",
            "ws: an unmasked client frame",
            listOf("text a") + ECHOED_THEN_CLOSED,
            KTOR,
            "Ktor's frame reader unmasks a masked frame and takes an unmasked one as it is; " +
                "the Frame it hands on does not say which it was",
        ),
        ktorPending("http: HTTP/1.1 with no Host", listOf("status 200"), "Ktor serves the request"),
        ktorPending("http: version HTTP/9.9", listOf("status 200"), "Netty parses any HTTP/x.y version and Ktor serves it"),
        ktorPending("upgrade: Sec-WebSocket-Version 8", listOf("status 101"), "Ktor's WebSockets plugin upgrades whatever the version"),
        ktorPending("upgrade: no Sec-WebSocket-Key", listOf("status 101"), "Ktor's WebSockets plugin upgrades without a key"),
        ktorPending(
            "upgrade: no Connection: Upgrade",
            listOf("status 426"),
            "Ktor's webSocket route needs Connection: Upgrade, so the request falls to the core's plain-GET answer, 426",
        ),
        ktorPending("ws: RSV1 set with no extension", listOf("text a") + ECHOED_THEN_CLOSED, "Ktor's session ignores the reserved bits"),
        ktorPending("ws: RSV3 set with no extension", listOf("text a") + ECHOED_THEN_CLOSED, "Ktor's session ignores the reserved bits"),
        ktorPending("ws: close 999, below the codes", listOf("close 999", "dropped"), "Ktor's session echoes any close code"),
        ktorPending("ws: close 1005, never sent", listOf("close 1005", "dropped"), "Ktor's session echoes any close code"),
        ktorPending("ws: close 2999, reserved", listOf("close 2999", "dropped"), "Ktor's session echoes any close code"),
        ktorPending("ws: close 5000, beyond the codes", listOf("close 5000", "dropped"), "Ktor's session echoes any close code"),
        ktorPending("ws: close with a 1-byte payload", ECHOED_THEN_CLOSED, "Ktor's session answers it as a close 1000"),
        ktorPending("ws: close without a code", ECHOED_THEN_CLOSED, "Ktor's session answers 1000 rather than echo the empty close"),
        ktorPending("ws: close with an invalid UTF-8 reason", ECHOED_THEN_CLOSED, "Ktor's session does not check the reason's UTF-8"),
        ktorPending("ws: invalid UTF-8 in a text frame", listOf("text \uFFFD") + ECHOED_THEN_CLOSED, "Ktor's readText replaces bad bytes"),
        ktorPending(
            "ws: invalid UTF-8 completed in the last fragment",
            listOf("text \uFFFDA") + ECHOED_THEN_CLOSED,
            "Ktor's readText replaces bad bytes",
        ),
        divergence(
            "jetty",
            "upgrade: Sec-WebSocket-Version 8",
            listOf("status 426"),
            JETTY,
            "Jetty's handshake answers 426 without the Sec-WebSocket-Version header RFC 6455 4.4 requires; " +
                "the server could check the version first",
            pending = true,
        ),
    )

    fun of(engine: String, case: String): Divergence? = all.singleOrNull { it.engine == engine && it.case == case }

    init {
        val names = AbuseCase.all.map { it.name }.toSet()
        all.forEach { require(it.case in names) { "a divergence for no case: ${it.case}" } }
    }
}
