package lab.bench.collect

import lab.bench.collect.WireLatency.Answered
import lab.bench.collect.WireLatency.Pairing
import lab.bench.collect.WireLatency.TcpSegment
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull

class WireLatencyTest {
    private val server = 8080
    private val client = 50_001

    @Test
    fun `a TCP segment's ports and payload come from its IPv4 and TCP headers, options included`() {
        val packet = ipv4Tcp(client, server, "GET /json HTTP/1.1\r\n", tcpOptionsBytes = 12)
        val segment = TcpSegment.parse(packet, packet.size)!!
        assertEquals(client, segment.sourcePort)
        assertEquals(server, segment.destinationPort)
        assertEquals(20, segment.payloadBytes)
        assertEquals("GET /json HTTP/1.1\r\n", segment.payloadStart)
    }

    @Test
    fun `a segment read only in part still gives its payload's full length`() {
        val packet = ipv4Tcp(client, server, "x".repeat(1_000))
        val segment = TcpSegment.parse(packet, 60)!!
        assertEquals(1_000, segment.payloadBytes)
        assertEquals("x".repeat(20), segment.payloadStart)
    }

    @Test
    fun `anything but IPv4 TCP is not a segment`() {
        val udp = ipv4Tcp(client, server, "GET / HTTP/1.1").also { it[9] = 17 }
        assertNull(TcpSegment.parse(udp, udp.size))
        val ipv6 = ipv4Tcp(client, server, "").also { it[0] = 0x60 }
        assertNull(TcpSegment.parse(ipv6, ipv6.size))
    }

    @Test
    fun `a response's first segment answers the request open on its client port, timed from the request's arrival`() {
        val pairing = Pairing(server)
        assertNull(pairing.add(segment(client, server, "GET /json HTTP/1.1\r\n"), 1_000))
        assertNull(pairing.add(segment(client + 1, server, "GET /dashboard/user-7 HTTP/1.1\r\n"), 1_500))
        assertEquals(Answered("dashboard", 1_500, 3_500), pairing.add(segment(server, client + 1, "HTTP/1.1 200 OK"), 5_000))
        assertEquals(Answered("json", 1_000, 5_000), pairing.add(segment(server, client, "HTTP/1.1 200 OK"), 6_000))
        assertNull(pairing.add(segment(server, client, "the rest of the body"), 6_100), "a response's later segments answer nothing")
    }

    @Test
    fun `two load generators sending from the same port are two clients`() {
        val pairing = Pairing(server)
        assertNull(pairing.add(segment(client, server, "GET /json HTTP/1.1\r\n", from = LG1), 1_000))
        assertNull(pairing.add(segment(client, server, "GET /dashboard/user-7 HTTP/1.1\r\n", from = LG2), 1_500))
        assertEquals(Answered("json", 1_000, 2_000), pairing.add(segment(server, client, "HTTP/1.1 200 OK", to = LG1), 3_000))
        assertEquals(Answered("dashboard", 1_500, 2_500), pairing.add(segment(server, client, "HTTP/1.1 200 OK", to = LG2), 4_000))
    }

    @Test
    fun `a segment's addresses come from its IPv4 header`() {
        val segment = segment(client, server, "GET /json HTTP/1.1\r\n", from = LG2)
        assertEquals(LG2, segment.sourceAddress)
        assertEquals(SUT, segment.destinationAddress)
    }

    @Test
    fun `the wire is read on the interface that holds the servers' address`() {
        assertEquals("lo", WireLatency.deviceOf("127.0.0.1"))
        // 198.18.255.254: RFC 2544's benchmark range, held by no interface of a test host.
        val none = assertFailsWith<PacketSocket.Unavailable> { WireLatency.deviceOf("198.18.255.254") }
        assertEquals("no interface of this host holds 198.18.255.254", none.message)
        val ipv6 = assertFailsWith<PacketSocket.Unavailable> { WireLatency.deviceOf("::1") }
        assertEquals("the wire is read for IPv4 only, and ::1 is not IPv4", ipv6.message)
    }

    @Test
    fun `acknowledgements, WebSocket frames and other ports' traffic answer nothing`() {
        val pairing = Pairing(server)
        assertNull(pairing.add(segment(client, server, "GET /json HTTP/1.1\r\n"), 1_000))
        assertNull(pairing.add(segment(server, client, ""), 1_100), "a bare acknowledgement")
        assertNull(pairing.add(segment(9_999, client, "HTTP/1.1 200 OK"), 1_200), "another port")
        assertEquals("json", pairing.add(segment(server, client, "HTTP/1.1 200 OK"), 2_000)?.endpoint)
        assertNull(pairing.add(segment(client, server, "\u0089\u0080\u0001\u0002"), 3_000), "a ping frame opens no request")
        assertNull(pairing.add(segment(server, client, "\u008a\u0000"), 3_100), "so its pong answers none")
    }

    @Test
    fun `an endpoint is the request path's first part`() {
        assertEquals("json", Pairing.endpointOf("GET /json HTTP/1.1"))
        assertEquals("delay", Pairing.endpointOf("GET /delay?ms=20 HTTP/1.1"))
        assertEquals("dashboard", Pairing.endpointOf("GET /dashboard/user-1 HTTP/1.1"))
        assertEquals("", Pairing.endpointOf("GET / HTTP/1.1"))
        assertNull(Pairing.endpointOf("{\"a\": 1}"))
    }

    /** A segment between ports [fromPort] and [toPort], and addresses [fromAddress] and [toAddress]. */
    private fun segment(fromPort: Int, toPort: Int, payload: String, from: Int = SUT, to: Int = SUT): TcpSegment {
        // A request goes to the server's host, an answer comes from it.
        val (source, destination) = if (toPort == server) from to SUT else SUT to to
        return ipv4Tcp(fromPort, toPort, payload, source = source, destination = destination).let { TcpSegment.parse(it, it.size)!! }
    }

    /** An IPv4 packet (20-byte header) holding a TCP segment (20 bytes plus [tcpOptionsBytes]) with [payload]. */
    private fun ipv4Tcp(
        from: Int,
        to: Int,
        payload: String,
        tcpOptionsBytes: Int = 0,
        source: Int = SUT,
        destination: Int = SUT,
    ): ByteArray {
        val tcpHeader = 20 + tcpOptionsBytes
        val body = payload.toByteArray(Charsets.ISO_8859_1)
        val total = 20 + tcpHeader + body.size
        val packet = ByteArray(total)
        packet[0] = 0x45
        packet[2] = (total shr 8).toByte()
        packet[3] = total.toByte()
        packet[9] = 6
        for (i in 0..3) {
            packet[12 + i] = (source ushr 8 * (3 - i)).toByte()
            packet[16 + i] = (destination ushr 8 * (3 - i)).toByte()
        }
        packet[20] = (from shr 8).toByte()
        packet[21] = from.toByte()
        packet[22] = (to shr 8).toByte()
        packet[23] = to.toByte()
        packet[32] = (tcpHeader / 4 shl 4).toByte()
        body.copyInto(packet, 20 + tcpHeader)
        return packet
    }

    private companion object {
        /** 198.18.0.10, 198.18.0.11 and 198.18.0.12: a server host and two load generators, as in the rehearsal. */
        const val SUT = (198 shl 24) or (18 shl 16) or 10
        const val LG1 = (198 shl 24) or (18 shl 16) or 11
        const val LG2 = (198 shl 24) or (18 shl 16) or 12
    }
}
