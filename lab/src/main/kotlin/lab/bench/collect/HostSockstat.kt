package lab.bench.collect

import java.io.File

/**
 * The host's TCP memory, where the server cannot have a memory group of its own
 * ([MemoryCgroup]): `/proc/net/sockstat`'s `TCP: ... mem N`, in pages. It is host-wide, so
 * on loopback it counts both ends of every socket, and any other program's sockets too.
 */
class HostSockstat(because: String, private val sockstat: File = File("/proc/net/sockstat")) : KernelMemory {
    override val source = "sockstat-host"

    override val description = "the host's TCP memory from ${sockstat.path}, both ends of loopback sockets included ($because)"

    override fun launch(command: List<String>): List<String> = command

    override fun read(): Map<String, Long> = mapOf(KERNEL_TCP_HOST to tcpPages(sockstat.readText()) * pageBytes)

    companion object {
        const val KERNEL_TCP_HOST = "kernel_tcp_host"

        /** The `mem` of sockstat's `TCP:` line: `TCP: inuse 21 orphan 0 tw 14 alloc 21 mem 33`. */
        fun tcpPages(text: String): Long {
            val fields = text.lines().firstOrNull { it.startsWith("TCP:") }?.split(Regex("\\s+"))
                ?: throw IllegalStateException("no TCP line in sockstat: $text")
            val at = fields.indexOf("mem")
            check(at > 0 && at + 1 < fields.size) { "no mem in sockstat's TCP line: ${fields.joinToString(" ")}" }
            return fields[at + 1].toLong()
        }

        /** The kernel's page size, the unit of sockstat's mem: the first mapping's in /proc/self/smaps. */
        val pageBytes: Long by lazy {
            File("/proc/self/smaps").useLines { lines ->
                lines.firstOrNull { it.startsWith("KernelPageSize:") }?.split(Regex("\\s+"))?.get(1)?.toLong()?.times(1024)
            } ?: 4096L
        }
    }
}
