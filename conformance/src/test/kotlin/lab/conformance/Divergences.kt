package lab.conformance

/**
 * Where an engine answers an [AbuseCase] otherwise than its RFC, and a server's own code cannot
 * change that, declared once: the answer, the library and version that give it, and why the
 * server cannot. [ProtocolAbuseTest] holds the engine's servers to the declared answer, so a
 * library upgrade that changes it fails the test and is noticed. docs/CONFORMANCE.md lists them.
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

    val all: List<Divergence> = listOf(
        // RFC 9112 3 lets a recipient parse a request line on whitespace, and Netty does; Jetty holds to the grammar.
        divergence(
            "ktor-netty",
            "request line: a space before the method",
            listOf("status 200"),
            KTOR,
            "Netty's request decoder skips whitespace ahead of the method, as RFC 9112 3 allows (MAY), and hands Ktor " +
                "the line it parsed, not the bytes; the server's own code never sees the space",
        ),
        divergence(
            "ktor-netty",
            "request line: tabs between its parts",
            listOf("status 200"),
            KTOR,
            "Netty's request decoder splits the request line on any whitespace, tabs too, as RFC 9112 3 allows (MAY), " +
                "and hands Ktor the parts; the server's own code never sees the tabs",
        ),
    )

    fun of(engine: String, case: String): Divergence? = all.singleOrNull { it.engine == engine && it.case == case }

    /**
     * Where an engine's verdict on an Autobahn testsuite case ([AutobahnTest]; the case by its
     * id, "5.19"; the answers are wstest's verdicts) is neither OK, NON-STRICT nor
     * INFORMATIONAL. None: every server passes every case of [AutobahnRun.SECTIONS].
     */
    val autobahn: List<Divergence> = emptyList()

    fun autobahnOf(engine: String, case: String): Divergence? = autobahn.singleOrNull { it.engine == engine && it.case == case }

    init {
        val names = AbuseCase.all.map { it.name }.toSet()
        all.forEach { require(it.case in names) { "a divergence for no case: ${it.case}" } }
    }
}
