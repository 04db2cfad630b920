package lab.bench.collect

import lab.bench.collect.WireLatency.TcpSegment
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.net.DatagramPacket
import java.net.DatagramSocket
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.net.Socket
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The kernel's filter on a real packet socket on loopback: of TCP to two ports and UDP to the
 * watched one, the reader gets the watched port's TCP segments, both ways, and nothing else.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TcpPortFilterIT {
    private val loopback = InetAddress.getLoopbackAddress()

    @Test
    fun `a packet socket reads the watched port's TCP both ways, and no other port's or protocol's`() {
        ServerSocket(0, 8, loopback).use { watched ->
            ServerSocket(0, 8, loopback).use { other ->
                val socket = try {
                    PacketSocket.open(PacketSocket.LOOPBACK, watched.localPort, READ_TIMEOUT_MS)
                } catch (e: PacketSocket.Unavailable) {
                    // Reading packets needs root or CAP_NET_RAW: CI runs as root; a user's run skips.
                    assumeTrue(false, e.message)
                    return
                }
                socket.use {
                    exchange(watched, "to the watched port")
                    exchange(other, "to another port")
                    DatagramSocket().use { udp ->
                        val bytes = "UDP to the watched port".toByteArray()
                        udp.send(DatagramPacket(bytes, bytes.size, InetSocketAddress(loopback, watched.localPort)))
                    }
                    val seen = generateSequence { ByteArray(HEADER_BYTES).let { b -> socket.receive(b)?.let { b to it.length } } }
                        .map { (bytes, length) -> TcpSegment.parse(bytes, length) }
                        .toList()
                    assertTrue(seen.all { it != null }, "every packet read is a TCP segment")
                    val ports = seen.filterNotNull().map { setOf(it.sourcePort, it.destinationPort) }
                    assertTrue(ports.all { watched.localPort in it }, "every segment is to or from the watched port: $ports")
                    val payloads = seen.filterNotNull().map { it.payloadStart }.filter { it.isNotEmpty() }
                    assertEquals(listOf("to the watched port", "back from it"), payloads)
                }
            }
        }
    }

    /** Sends [text] to [server] and its answer back, on one connection of its own. */
    private fun exchange(server: ServerSocket, text: String) {
        Socket(loopback, server.localPort).use { client ->
            server.accept().use { accepted ->
                client.getOutputStream().write(text.toByteArray())
                accepted.getInputStream().readNBytes(text.length)
                accepted.getOutputStream().write("back from it".toByteArray())
                client.getInputStream().readNBytes("back from it".length)
            }
        }
    }

    private companion object {
        const val READ_TIMEOUT_MS = 300L
        const val HEADER_BYTES = 100
    }
}
