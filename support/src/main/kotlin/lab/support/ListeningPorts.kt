package lab.support

import java.io.File
import java.nio.file.Files

/**
 * The TCP ports a process listens on, as Linux's /proc shows them: how the lab learns which
 * port a program it told to bind port 0 took, so that no port is chosen free and bound later,
 * when another process may have taken it.
 */
object ListeningPorts {
    private val SOCKET = Regex("""socket:\[(\d+)]""")
    private const val LISTEN = "0A"

    fun of(pid: Long): Set<Int> {
        val sockets = File("/proc/$pid/fd").listFiles().orEmpty()
            .mapNotNull { runCatching { Files.readSymbolicLink(it.toPath()).toString() }.getOrNull() }
            .mapNotNull { SOCKET.matchEntire(it)?.groupValues?.get(1) }
            .toSet()
        // A row: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
        return listOf("tcp", "tcp6").flatMap { table -> File("/proc/$pid/net/$table").takeIf { it.isFile }?.readLines()?.drop(1).orEmpty() }
            .map { it.trim().split(Regex("\\s+")) }
            .filter { it.size > 9 && it[3] == LISTEN && it[9] in sockets }
            .map { it[1].substringAfterLast(':').toInt(16) }
            .toSet()
    }

    /** The one port [process] listens on, once it does; null if it exits or [timeoutMs] passes first. */
    fun awaitOne(process: Process, timeoutMs: Long): Int? {
        val deadline = System.nanoTime() + timeoutMs * 1_000_000
        while (process.isAlive && System.nanoTime() < deadline) {
            of(process.pid()).singleOrNull()?.let { return it }
            Thread.sleep(50)
        }
        return null
    }
}
