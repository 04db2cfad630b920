package lab.bench

import kotlinx.serialization.Serializable
import java.io.File

/** The host limits that decide how many sockets and threads a run can have, read from /proc. */
@Serializable
data class HostLimits(
    /** Hard limit on open files per process: the JVM and k6 both raise their soft limit to it. */
    val openFilesHard: Long,
    val maxMapCount: Long,
    val pidMax: Long,
    val threadsMax: Long,
    val localPortFirst: Int,
    val localPortLast: Int,
    val somaxconn: Long,
) {
    val localPorts: Int get() = localPortLast - localPortFirst + 1

    companion object {
        fun read(): HostLimits {
            val limits = File("/proc/self/limits").readLines()
            val openFiles = limits.first { it.startsWith("Max open files") }.split(Regex("\\s{2,}"))
            val ports = sysctl("net/ipv4/ip_local_port_range").split(Regex("\\s+"))
            return HostLimits(
                openFilesHard = openFiles[2].toLongOrNull() ?: Long.MAX_VALUE,
                maxMapCount = sysctl("vm/max_map_count").toLong(),
                pidMax = sysctl("kernel/pid_max").toLong(),
                threadsMax = sysctl("kernel/threads-max").toLong(),
                localPortFirst = ports[0].toInt(),
                localPortLast = ports[1].toInt(),
                somaxconn = sysctl("net/core/somaxconn").toLong(),
            )
        }

        private fun sysctl(path: String): String = File("/proc/sys/$path").readText().trim()
    }
}
