package lab.bench.collect

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import kotlin.test.assertEquals

class HostSockstatTest {
    private val sample = """
        sockets: used 43
        TCP: inuse 1022 orphan 0 tw 21 alloc 1022 mem 1058
        UDP: inuse 0 mem 0
    """.trimIndent()

    @Test
    fun `the host's TCP memory is the TCP line's mem, in pages, not UDP's`() {
        assertEquals(1058, HostSockstat.tcpPages(sample))
    }

    @Test
    fun `it is given in bytes, under its own component name`() {
        val file = File.createTempFile("sockstat", ".txt").apply {
            writeText(sample)
            deleteOnExit()
        }
        val read = HostSockstat("a test", file).read()
        assertEquals(setOf(HostSockstat.KERNEL_TCP_HOST), read.keys)
        assertEquals(1058 * HostSockstat.pageBytes, read.getValue(HostSockstat.KERNEL_TCP_HOST))
    }

    @Test
    fun `a sockstat without TCP memory is an error, not 0 bytes`() {
        assertThrows<IllegalStateException> { HostSockstat.tcpPages("sockets: used 43\nUDP: inuse 0 mem 0\n") }
    }
}
