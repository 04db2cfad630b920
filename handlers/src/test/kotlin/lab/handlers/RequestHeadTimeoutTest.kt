package lab.handlers

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

class RequestHeadTimeoutTest {
    private val answer = RequestHeadTimeout.answer(2_000).toString(Charsets.UTF_8)
    private val head = answer.substringBefore("\r\n\r\n").split("\r\n")
    private val body = answer.substringAfter("\r\n\r\n")

    @Test
    fun `the answer is a 408 that closes the connection`() {
        assertEquals("HTTP/1.1 408 Request Timeout", head.first())
        assertEquals(listOf("Connection: close"), head.filter { it.startsWith("Connection:") })
    }

    @Test
    fun `its body is the core's error, with its length`() {
        assertEquals(Handlers.requestHeadTimedOut(2_000).body.toString(Charsets.UTF_8), body)
        assertEquals(listOf("Content-Length: ${body.toByteArray().size}"), head.filter { it.startsWith("Content-Length:") })
        assertEquals(listOf("Content-Type: ${ContentTypes.JSON}"), head.filter { it.startsWith("Content-Type:") })
    }

    @Test
    fun `it names the bound that was passed`() = assertEquals(true, body.contains("2000 ms"))
}
