package lab.support

import java.net.InetAddress
import java.net.ServerSocket
import java.net.Socket
import kotlin.test.Test
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class ListeningPortsTest {
    private val self = ProcessHandle.current().pid()

    @Test
    fun `a port bound as port 0 is read back while it listens, and not after it closes`() {
        val server = ServerSocket(0, 0, InetAddress.getLoopbackAddress())
        val port = server.localPort
        server.use { assertTrue(port in ListeningPorts.of(self), "$port in ${ListeningPorts.of(self)}") }
        assertFalse(port in ListeningPorts.of(self))
    }

    @Test
    fun `a connected socket is not a listening one`() {
        ServerSocket(0, 0, InetAddress.getLoopbackAddress()).use { server ->
            Socket(server.inetAddress, server.localPort).use { client ->
                assertFalse(client.localPort in ListeningPorts.of(self))
            }
        }
    }
}
