package lab.support

import java.io.File
import java.nio.file.Files

/**
 * The TCP ports a process listens on, as Linux's /proc shows them: how the lab learns which
 * port a program it told to bind port 0 took, so that no port is chosen free and bound later,
 * when another process may have taken it. A load generator's /proc is read the same way, from
 * what [remoteCommand] prints there.
 */
object ListeningPorts {
    private val SOCKET = Regex("""socket:\[(\d+)]""")
    private const val LISTEN = "0A"

    fun of(pid: Long): Set<Int> {
        val links = File("/proc/$pid/fd").listFiles().orEmpty()
            .mapNotNull { runCatching { Files.readSymbolicLink(it.toPath()).toString() }.getOrNull() }
        val rows = listOf("tcp", "tcp6").flatMap { table -> File("/proc/$pid/net/$table").takeIf { it.isFile }?.readLines().orEmpty() }
        return listening(links, rows)
    }

    /**
     * The ports of [tcpRows] (lines of /proc's `net/tcp` and `net/tcp6`, headers and all) that are
     * listening sockets among a process's open files, [fdLinks] (where its `fd/` links point).
     */
    fun listening(fdLinks: List<String>, tcpRows: List<String>): Set<Int> {
        val sockets = fdLinks.mapNotNull { SOCKET.matchEntire(it.trim())?.groupValues?.get(1) }.toSet()
        // A row: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
        return tcpRows.map { it.trim().split(Regex("\\s+")) }
            .filter { it.size > 9 && it[3] == LISTEN && it[9] in sockets }
            .map { it[1].substringAfterLast(':').toInt(16) }
            .toSet()
    }

    /**
     * A shell command for a load generator: it prints, for the process whose pid is in [pidFile]
     * (a path already quoted for the shell), its `fd/` links, a line [SEPARATOR], and its TCP
     * tables, which [fromRemote] reads. It prints nothing while that file does not exist.
     */
    fun remoteCommand(pidFile: String): String =
        "pid=\$(cat $pidFile 2>/dev/null) || exit 0; for f in /proc/\$pid/fd/*; do readlink \"\$f\"; done 2>/dev/null; " +
            "echo $SEPARATOR; cat /proc/\$pid/net/tcp /proc/\$pid/net/tcp6 2>/dev/null; exit 0"

    private const val SEPARATOR = "--lab-tcp--"

    /** The ports [remoteCommand]'s [output] shows listening; none if it printed nothing. */
    fun fromRemote(output: String): Set<Int> {
        val lines = output.lines()
        val split = lines.indexOf(SEPARATOR)
        if (split < 0) return emptySet()
        return listening(lines.subList(0, split), lines.subList(split + 1, lines.size))
    }

    /** The [count] ports [process] listens on, once it listens on that many; null if it exits or [timeoutMs] passes first. */
    fun await(process: Process, count: Int, timeoutMs: Long): Set<Int>? {
        val deadline = System.nanoTime() + timeoutMs * 1_000_000
        while (process.isAlive && System.nanoTime() < deadline) {
            of(process.pid()).takeIf { it.size == count }?.let { return it }
            Thread.sleep(50)
        }
        return null
    }
}
