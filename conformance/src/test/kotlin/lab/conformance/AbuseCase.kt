package lab.conformance

import lab.conformance.RawWire.Frame
import java.net.URI

/**
 * Bad input on the wire, case by case, each with the answer its RFC gives: the categories of
 * the Autobahn WebSocket testsuite (framing, control frames, fragmentation, UTF-8, closing),
 * and the HTTP request's own (request line, headers, the upgrade handshake, pipelining, a
 * request cut off). An answer is what [run] saw, as a list of events:
 * - HTTP: `status 400`, one per response, or `closed` (no response, connection closed), `silent`;
 *   where the RFC says the server MUST close the connection after its answer, the answers are
 *   followed by `closed` or `open` (nothing more within the read timeout);
 * - WebSocket: `text abc`, `binary 3`, `pong p`, `close 1002` (`close` without a code),
 *   then `dropped` (the server closed the connection) or `silent` (it stayed open).
 *
 * A WebSocket case that gets no answer within the read timeout closes with 1000 itself, so a
 * server that keeps the rules answers `close 1000` and drops the connection.
 */
data class AbuseCase(
    val name: String,
    val rfc: String,
    val expected: List<String>,
    /** Another answer the RFC allows as well, where it leaves the server a choice. */
    val alsoAllowed: List<String>? = null,
    val run: (URI) -> List<String>,
) {
    val answers: List<List<String>> get() = listOfNotNull(expected, alsoAllowed)

    override fun toString() = name

    companion object {
        private fun http(
            name: String,
            rfc: String,
            expected: List<String>,
            request: String,
            cut: Boolean = false,
            alsoAllowed: List<String>? = null,
            closes: Boolean = false,
        ) = AbuseCase(name, rfc, expected, alsoAllowed) { base ->
            RawWire(base).use { wire ->
                wire.write(request.replace("{host}", "${base.host}:${base.port}"))
                if (cut) {
                    // The server has the cut line before the stream ends: a request begun and abandoned.
                    Thread.sleep(CUT_PAUSE_MS)
                    wire.endOutput()
                }
                wire.statuses(untilEnd = closes)
            }
        }

        /**
         * A request whose body's length two parsers could read differently, with a request behind it
         * that a server which misread it would answer: RFC 9112 6 has the server refuse it, or read it
         * by Transfer-Encoding alone, and then close the connection (MUST), so `GET /json` is never answered.
         */
        private fun smuggling(name: String, rfc: String, head: String, body: String, alsoAllowed: List<String>? = null) = http(
            "smuggling: $name",
            rfc,
            listOf("status 400", "closed"),
            "POST /health HTTP/1.1\r\nHost: {host}\r\n$head\r\n$body$SMUGGLED",
            alsoAllowed = alsoAllowed,
            closes = true,
        )

        /** A request line's shape (RFC 9112 3), with a whole head behind it. */
        private fun requestLine(name: String, expected: List<String>, line: String, rfc: String = "9112 3") =
            http("request line: $name", rfc, expected, "$line\r\nHost: {host}\r\n\r\n")

        private const val SMUGGLED = "GET /json HTTP/1.1\r\nHost: {host}\r\n\r\n"

        private fun handshake(name: String, rfc: String, expected: List<String>, change: (MutableMap<String, String>) -> Unit) =
            AbuseCase(name, rfc, expected) { base ->
                RawWire(base).use { wire ->
                    wire.write(RawWire.upgrade(base, LinkedHashMap(RawWire.HANDSHAKE).also(change)))
                    wire.statuses(upgradeHeaders = true)
                }
            }

        private fun frames(name: String, rfc: String, expected: List<String>, vararg sent: Pair<Frame, Boolean>) =
            AbuseCase(name, rfc, expected) { base ->
                RawWire.webSocket(base).use { wire ->
                    for ((frame, masked) in sent) wire.send(frame, masked)
                    wire.events()
                }
            }

        /** As [frames], for a case whose answers before the close the RFC puts in no order: they are compared sorted. */
        private fun unordered(name: String, rfc: String, expected: List<String>, vararg sent: Frame) =
            frames(name, rfc, expected, *sent).let { case ->
                case.copy(expected = closeLast(expected)) { base -> closeLast(case.run(base)) }
            }

        private fun closeLast(events: List<String>): List<String> {
            val ending = events.dropWhile { !it.startsWith("close") && it != "dropped" }
            return events.dropLast(ending.size).sorted() + ending
        }

        private const val CUT_PAUSE_MS = 300L

        private fun frames(name: String, rfc: String, expected: List<String>, vararg sent: Frame) =
            frames(name, rfc, expected, *sent.map { it to true }.toTypedArray())

        private val FAIL = listOf("close 1002", "dropped")
        private val INVALID_UTF8 = listOf("close 1007", "dropped")
        private val CLEAN_CLOSE = listOf("close 1000", "dropped")
        private val EURO = "€".toByteArray()

        val all: List<AbuseCase> = listOf(
            // --- WebSocket framing (RFC 6455 5.2, 5.1) ---
            frames("ws: RSV1 set with no extension", "6455 5.2", FAIL, Frame(Frame.TEXT, "a".toByteArray(), rsv = 4)),
            frames("ws: RSV3 set with no extension", "6455 5.2", FAIL, Frame(Frame.TEXT, "a".toByteArray(), rsv = 1)),
            frames("ws: reserved data opcode 3", "6455 5.2", FAIL, Frame(3, "a".toByteArray())),
            frames("ws: reserved control opcode 11", "6455 5.2", FAIL, Frame(11)),
            frames(
                "ws: a message, then a reserved opcode",
                "6455 5.2",
                listOf("text a") + FAIL,
                Frame.text("a"),
                Frame(3, "b".toByteArray()),
            ),
            frames("ws: an unmasked client frame", "6455 5.1", FAIL, Frame.text("a") to false),
            // --- control frames (5.5) ---
            frames("ws: a ping of 126 bytes", "6455 5.5", FAIL, Frame(Frame.PING, ByteArray(126))),
            frames("ws: a fragmented ping", "6455 5.5", FAIL, Frame(Frame.PING, "p".toByteArray(), fin = false)),
            // The pong may come before the echo or after it.
            unordered(
                "ws: a ping amid a fragmented message",
                "6455 5.4",
                listOf("pong p", "text abc") + CLEAN_CLOSE,
                Frame.text("ab", fin = false),
                Frame(Frame.PING, "p".toByteArray()),
                Frame(Frame.CONTINUATION, "c".toByteArray()),
            ),
            // --- fragmentation (5.4) ---
            frames(
                "ws: a message in three fragments",
                "6455 5.4",
                listOf("text abc") + CLEAN_CLOSE,
                Frame.text("a", fin = false),
                Frame(Frame.CONTINUATION, "b".toByteArray(), fin = false),
                Frame(Frame.CONTINUATION, "c".toByteArray()),
            ),
            frames("ws: a continuation with no message begun", "6455 5.4", FAIL, Frame(Frame.CONTINUATION, "a".toByteArray())),
            frames(
                "ws: a new message amid a fragmented one",
                "6455 5.4",
                FAIL,
                Frame.text("a", fin = false),
                Frame.text("b"),
            ),
            // --- UTF-8 (8.1) ---
            frames(
                "ws: invalid UTF-8 in a text frame",
                "6455 8.1",
                INVALID_UTF8,
                Frame(Frame.TEXT, byteArrayOf(0xC0.toByte(), 0xAF.toByte())),
            ),
            frames(
                "ws: a character split across fragments",
                "6455 8.1",
                listOf("text €") + CLEAN_CLOSE,
                Frame(Frame.TEXT, EURO.copyOfRange(0, 2), fin = false),
                Frame(Frame.CONTINUATION, EURO.copyOfRange(2, 3)),
            ),
            frames(
                "ws: invalid UTF-8 completed in the last fragment",
                "6455 8.1",
                INVALID_UTF8,
                Frame(Frame.TEXT, EURO.copyOfRange(0, 2), fin = false),
                Frame(Frame.CONTINUATION, byteArrayOf(0x41)),
            ),
            // --- closing (5.5.1, 7.4) ---
            frames("ws: close 1000", "6455 5.5.1", CLEAN_CLOSE, Frame.close(1000)),
            frames("ws: close 3000, an application's code", "6455 7.4.2", listOf("close 3000", "dropped"), Frame.close(3000)),
            frames("ws: close without a code", "6455 5.5.1", listOf("close", "dropped"), Frame(Frame.CLOSE)),
            frames("ws: close with a 1-byte payload", "6455 5.5.1", FAIL, Frame(Frame.CLOSE, byteArrayOf(0x03))),
            frames("ws: close 999, below the codes", "6455 7.4", FAIL, Frame.close(999)),
            frames("ws: close 1005, never sent", "6455 7.4.1", FAIL, Frame.close(1005)),
            frames("ws: close 2999, reserved", "6455 7.4.2", FAIL, Frame.close(2999)),
            frames("ws: close 5000, beyond the codes", "6455 7.4.2", FAIL, Frame.close(5000)),
            frames("ws: close with an invalid UTF-8 reason", "6455 8.1", INVALID_UTF8, Frame.close(1000, byteArrayOf(0xFF.toByte()))),
            frames("ws: a close after a close", "6455 5.5.1", CLEAN_CLOSE, Frame.close(1000), Frame.close(1000)),
            // --- the upgrade handshake (6455 4.2) ---
            handshake("upgrade: no Sec-WebSocket-Key", "6455 4.2.1", listOf("status 400")) { it.remove("Sec-WebSocket-Key") },
            handshake("upgrade: Sec-WebSocket-Version 8", "6455 4.4", listOf("status 426 upgrade websocket version 13")) {
                it["Sec-WebSocket-Version"] = "8"
            },
            handshake("upgrade: no Connection: Upgrade", "6455 4.2.1", listOf("status 400")) { it.remove("Connection") },
            AbuseCase("upgrade: over HTTP/1.0", "6455 4.2.1", listOf("status 400")) { base ->
                RawWire(base).use { wire ->
                    wire.write(RawWire.upgrade(base).replaceFirst("HTTP/1.1", "HTTP/1.0"))
                    wire.statuses(upgradeHeaders = true)
                }
            },
            handshake("upgrade: a plain GET of /ws", "9110 15.5.22", listOf("status 426 upgrade websocket")) { it.clear() },
            // --- the request line and headers (RFC 9110, 9112) ---
            http("http: version HTTP/9.9", "9110 15.6.6", listOf("status 505"), "GET /health HTTP/9.9\r\nHost: {host}\r\n\r\n"),
            http("http: a request line that is not one", "9112 3", listOf("status 400"), "HELLO\r\n\r\n"),
            http("http: HTTP/1.1 with no Host", "9112 3.2", listOf("status 400"), "GET /health HTTP/1.1\r\n\r\n"),
            http(
                "http: a header of 64 KB",
                "6585 5",
                listOf("status 431"),
                "GET /health HTTP/1.1\r\nHost: {host}\r\nX-Big: ${"x".repeat(64 * 1024)}\r\n\r\n",
            ),
            http(
                "http: a header line with no colon",
                "9112 5",
                listOf("status 400"),
                "GET /health HTTP/1.1\r\nHost: {host}\r\nNoColonHere\r\n\r\n",
            ),
            http(
                "http: two different Content-Lengths",
                "9112 6.3",
                listOf("status 400", "closed"),
                "POST /health HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
                closes = true,
            ),
            http(
                "http: two pipelined requests",
                "9112 9.3.2",
                listOf("status 200", "status 200"),
                "GET /health HTTP/1.1\r\nHost: {host}\r\n\r\nGET /json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
            ),
            // --- the request line's shapes (RFC 9112 3, and HTTP/0.9's in its appendix C.1) ---
            requestLine("two tokens, no version (HTTP/0.9's)", listOf("status 400"), "GET /health"),
            requestLine("four tokens", listOf("status 400"), "GET /health HTTP/1.1 extra"),
            // "recipients MAY instead parse on whitespace-delimited word boundaries": both engines take two spaces.
            requestLine("two spaces after the method", listOf("status 200"), "GET  /health HTTP/1.1"),
            requestLine("no space after the method", listOf("status 400"), "GET/health HTTP/1.1"),
            requestLine("a space after the version", listOf("status 400"), "GET /health HTTP/1.1 "),
            requestLine("a space before the method", listOf("status 400"), " GET /health HTTP/1.1"),
            requestLine("tabs between its parts", listOf("status 400"), "GET\t/health\tHTTP/1.1"),
            // RFC 9110 9.1: methods are case-sensitive, and one the server does not recognize gets 501.
            requestLine("a lowercase method", listOf("status 501"), "get /health HTTP/1.1", rfc = "9110 9.1"),
            requestLine("an unknown method", listOf("status 501"), "BREW /health HTTP/1.1", rfc = "9110 9.1"),
            http(
                "request line: an absolute-form target",
                "9112 3.2.2",
                listOf("status 200"),
                "GET http://{host}/health HTTP/1.1\r\nHost: {host}\r\n\r\n",
            ),
            // The server has no options for itself as a whole: * is a target it does not have, as /nope is.
            requestLine("an asterisk-form target, with OPTIONS", listOf("status 404"), "OPTIONS * HTTP/1.1", rfc = "9112 3.2.4"),
            requestLine("an asterisk-form target, with GET", listOf("status 400"), "GET * HTTP/1.1", rfc = "9112 3.2.4"),
            // "MAY recognize a single LF": neither does, since a line ending two parsers read differently smuggles requests.
            http("request line: a bare LF ending each line", "9112 2.2", listOf("status 400"), "GET /health HTTP/1.1\nHost: {host}\n\n"),
            // --- request smuggling (RFC 9112 6.1, 6.3): a body's length read two ways ---
            smuggling(
                "CL.TE, Content-Length and then chunked",
                "9112 6.1",
                "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                "0\r\n\r\n",
            ),
            smuggling(
                "TE.CL, chunked and then Content-Length",
                "9112 6.1",
                "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
                "8\r\nSMUGGLED\r\n0\r\n\r\n",
            ),
            smuggling(
                "TE.TE, chunked and then another coding",
                "9112 6.3",
                "Transfer-Encoding: chunked\r\nTransfer-Encoding: cow\r\n",
                "0\r\n\r\n",
            ),
            smuggling(
                "a coding that is not chunked, with a Content-Length",
                "9112 6.3",
                "Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n",
                "0\r\n\r\n",
            ),
            // RFC 9112 5.1: whitespace between a field's name and its colon MUST get 400.
            smuggling(
                "a space before Transfer-Encoding's colon",
                "9112 5.1",
                "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n",
                "0\r\n\r\n",
            ),
            // Framing treated as faulty, and the connection closed "after processing the message": refused, or answered by its route.
            http(
                "smuggling: Transfer-Encoding over HTTP/1.0",
                "9112 6.1",
                listOf("status 400", "closed"),
                "POST /health HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n$SMUGGLED",
                alsoAllowed = listOf("status 405", "closed"),
                closes = true,
            ),
            // The head is whole and answered by its route (POST: 405); its chunks do not parse, so the rest of the stream is no request.
            http(
                "smuggling: a chunk size that is not hexadecimal",
                "9112 7.1",
                listOf("status 405", "closed"),
                "POST /health HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n$SMUGGLED",
                alsoAllowed = listOf("status 400", "closed"),
                closes = true,
            ),
            // "MAY send an error response prior to closing": Jetty does or does not, by its threads' timing.
            http(
                "http: a request cut off mid-line",
                "9112 8",
                listOf("closed"),
                "GET /hea",
                cut = true,
                alsoAllowed = listOf("status 400"),
            ),
        )

        /**
         * The HTTP responses that come, one event each, until the server closes or falls silent; and
         * [untilEnd], which of the two it did after its responses (`closed` or `open`).
         */
        private fun RawWire.statuses(upgradeHeaders: Boolean = false, untilEnd: Boolean = false): List<String> {
            val events = mutableListOf<String>()
            while (true) {
                when (val head = readHead()) {
                    is RawWire.Reply.Head -> {
                        // A 426 names the protocol to upgrade to (RFC 9110 15.5.22) and, for a WebSocket, its versions (6455 4.4).
                        val named = listOf("upgrade", "sec-websocket-version")
                            .mapNotNull { name -> head.headers[name]?.let { "${name.substringAfterLast('-')} $it" } }
                            .takeIf { upgradeHeaders && head.status == 426 }
                        events += (listOf("status ${head.status}") + named.orEmpty()).joinToString(" ")
                        if (head.status == 101) return events
                        runCatching { skipBody(head) }.onFailure { return events + "closed" }
                    }
                    RawWire.Reply.Closed -> return if (untilEnd) events + "closed" else events.ifEmpty { listOf("closed") }
                    RawWire.Reply.Silent -> return if (untilEnd) events + "open" else events.ifEmpty { listOf("silent") }
                }
            }
        }

        /** The frames that come, one event each, until the connection ends or stays silent after the close. */
        private fun RawWire.events(): List<String> {
            val events = mutableListOf<String>()
            var closing = false
            while (true) {
                when (val received = receive()) {
                    is RawWire.Received.Got -> {
                        val frame = received.frame
                        events += when (frame.opcode) {
                            Frame.TEXT -> "text ${frame.text}"
                            Frame.BINARY -> "binary ${frame.payload.size}"
                            Frame.PONG -> "pong ${frame.text}"
                            Frame.CLOSE -> if (frame.closeCode < 0) "close" else "close ${frame.closeCode}"
                            else -> "opcode ${frame.opcode}"
                        }
                        if (frame.opcode == Frame.CLOSE) closing = true
                    }
                    RawWire.Received.Dropped -> return events + "dropped"
                    RawWire.Received.Silent -> {
                        if (closing) return events + "silent"
                        // The server has said all it will: the client ends the socket properly.
                        runCatching { send(Frame.close(1000)) }.onFailure { return events + "dropped" }
                        closing = true
                    }
                }
            }
        }
    }
}
