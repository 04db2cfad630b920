package lab.support

import java.io.File
import java.net.InetAddress
import java.net.ServerSocket
import java.net.Socket
import java.util.concurrent.TimeUnit
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotNull
import kotlin.test.assertNull
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

    @Test
    fun `the remote command reads a process's ports from its pid file, as a load generator's shell runs it`() {
        val pidFile = File.createTempFile("lab-pid-", ".txt").apply { deleteOnExit() }
        pidFile.writeText("$self\n")
        ServerSocket(0, 0, InetAddress.getLoopbackAddress()).use { server ->
            assertEquals(ListeningPorts.of(self), ListeningPorts.fromRemote(shell(ListeningPorts.remoteCommand(pidFile.path))))
            assertTrue(server.localPort in ListeningPorts.fromRemote(shell(ListeningPorts.remoteCommand(pidFile.path))))
        }
    }

    @Test
    fun `the remote command shows nothing before the pid file exists`() =
        assertEquals(emptySet(), ListeningPorts.fromRemote(shell(ListeningPorts.remoteCommand("/nonexistent/k6.pid"))))

    @Test
    fun `await returns a child's ports once it listens on as many as asked, and null once it has exited`() {
        // Two listeners one after the other, as k6 binds its API and then its dashboard.
        val script = "import socket, time\n" +
            "a = socket.socket(); a.bind(('127.0.0.1', 0)); a.listen(); time.sleep(0.3)\n" +
            "b = socket.socket(); b.bind(('127.0.0.1', 0)); b.listen(); time.sleep(30)\n"
        val child = ProcessBuilder("python3", "-c", script).start()
        try {
            val ports = assertNotNull(ListeningPorts.await(child, count = 2, timeoutMs = 10_000))
            assertEquals(2, ports.size)
            assertEquals(ports, ListeningPorts.of(child.pid()))
        } finally {
            child.destroyForcibly().waitFor()
        }
        assertNull(ListeningPorts.await(child, count = 2, timeoutMs = 1_000))
    }

    private fun shell(command: String): String {
        val process = ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        check(process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0) { "sh failed: $output" }
        return output
    }
}
