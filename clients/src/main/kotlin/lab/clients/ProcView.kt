package lab.clients

import java.io.File

/**
 * A process as /proc shows it: its CPU time and its OS threads, read from outside, so that
 * every server (and the client probe itself) is measured the same way whatever runs inside it.
 */
class ProcView(private val pid: Long) {
    /** User plus system CPU time in ms. /proc counts in clock ticks, 100 a second on Linux (USER_HZ). */
    fun cpuMs(): Long? = runCatching {
        // The command name, in parentheses, may hold spaces: the fields are counted after its closing one.
        val fields = File("/proc/$pid/stat").readText().substringAfterLast(')').trim().split(' ')
        (fields[11].toLong() + fields[12].toLong()) * 1000 / USER_HZ
    }.getOrNull()

    /** `Threads:` of /proc/<pid>/status, the JVM's own threads included; null once the process is gone. */
    fun threads(): Int? = runCatching {
        File("/proc/$pid/status").readLines().first { it.startsWith("Threads:") }.substringAfter(':').trim().toInt()
    }.getOrNull()

    companion object {
        private const val USER_HZ = 100

        fun self() = ProcView(ProcessHandle.current().pid())
    }
}
