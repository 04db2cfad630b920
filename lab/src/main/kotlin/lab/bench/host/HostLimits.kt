package lab.bench.host

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
        /** The /proc/sys files read, by their sysctl names: the ones `infra/host-limits.conf` declares targets for. */
        val SYSCTLS =
            listOf("vm.max_map_count", "kernel.pid_max", "kernel.threads-max", "net.ipv4.ip_local_port_range", "net.core.somaxconn")

        fun read(): HostLimits = parse(File("/proc/self/limits").readText()) { File("/proc/sys/${it.replace('.', '/')}").readText().trim() }

        /**
         * The shell command that prints another host's limits as seen by a process its SSH session
         * starts, in the form [parseRemote] reads: that host's `/proc/self/limits`, then `name=value` lines.
         */
        val REMOTE_COMMAND: String = "cat /proc/self/limits; " +
            SYSCTLS.joinToString("; ") { "echo \"$it=\$(cat /proc/sys/${it.replace('.', '/')})\"" }

        fun parseRemote(output: String): HostLimits {
            val values = output.lines().filter { '=' in it }.associate { it.substringBefore('=').trim() to it.substringAfter('=').trim() }
            return parse(output) { values[it] ?: throw IllegalStateException("the host did not report $it") }
        }

        /** [sysctl] gives a sysctl's value by its dotted name. */
        fun parse(limitsText: String, sysctl: (String) -> String): HostLimits {
            val openFiles = limitsText.lines().first { it.startsWith("Max open files") }.split(Regex("\\s{2,}"))
            val ports = sysctl("net.ipv4.ip_local_port_range").split(Regex("\\s+"))
            return HostLimits(
                openFilesHard = openFiles[2].toLongOrNull() ?: Long.MAX_VALUE,
                maxMapCount = sysctl("vm.max_map_count").toLong(),
                pidMax = sysctl("kernel.pid_max").toLong(),
                threadsMax = sysctl("kernel.threads-max").toLong(),
                localPortFirst = ports[0].toInt(),
                localPortLast = ports[1].toInt(),
                somaxconn = sysctl("net.core.somaxconn").toLong(),
            )
        }

        /**
         * The limits `infra/tune-host.sh` sets, from its one declared list (`infra/host-limits.conf`,
         * `name=value` lines): what the preflight's advice leads to.
         */
        fun tuned(conf: File): HostLimits {
            val values = conf.readLines().map { it.trim() }.filter { it.isNotEmpty() && !it.startsWith("#") }
                .associate { it.substringBefore('=') to it.substringAfter('=') }
            fun value(name: String) = values[name] ?: throw IllegalStateException("$conf declares no $name")
            return parse("Max open files            ${value("nofile")}                ${value("nofile")}                files") {
                value(it)
            }
        }
    }
}
