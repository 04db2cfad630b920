package lab.support

import kotlinx.serialization.Serializable
import java.io.File
import java.time.OffsetDateTime

/**
 * The header every experiment's manifest carries as `provenance`, so that any result says where
 * it came from the same way: the host, the JDK the measured code ran on, the commit, the
 * command, and how the run ended. A manifest is written with status [RUNNING] when its run
 * starts and again when it ends: [COMPLETE], [FAILED] (something failed; what could still ran)
 * or [INCOMPLETE] (stopped before the end: Ctrl-C, SIGTERM, a lost load generator).
 */
@Serializable
data class Provenance(
    val status: String,
    val command: String,
    val startedAt: String,
    val finishedAt: String? = null,
    val host: Host,
    /** The JDK the measured code ran on: the servers', or the benchmarks'. */
    val jdk: Jdk,
    val gitCommit: String,
    val gitDirty: Boolean,
    /**
     * What differed from [gitCommit]: the paths `git status --porcelain` listed, the first [DIRTY_PATHS_KEPT], so that a reader
     * of a dirty run can tell a changed note from changed code. Empty where the checkout was clean or is not beside the jars.
     */
    val gitDirtyPaths: List<String> = emptyList(),
) {
    /** This header for a run that ended with [status] now. */
    fun ended(status: String): Provenance = copy(status = status, finishedAt = OffsetDateTime.now().toString())

    @Serializable
    data class Host(val hostname: String, val kernel: String, val cpuModel: String, val cpus: Int, val memoryBytes: Long) {
        companion object {
            fun read() = Host(
                hostname = File("/proc/sys/kernel/hostname").readText().trim(),
                kernel = File("/proc/sys/kernel/osrelease").readText().trim(),
                cpuModel = File("/proc/cpuinfo").useLines { lines -> lines.firstOrNull { it.startsWith("model name") } }
                    ?.substringAfter(':')?.trim() ?: "unknown",
                // The host's, not this process's: the bench pins itself to the load's CPUs before it writes this header.
                cpus = File("/proc/cpuinfo").useLines { lines -> lines.count { it.startsWith("processor") } },
                memoryBytes = File("/proc/meminfo").useLines { lines -> lines.first { it.startsWith("MemTotal:") } }
                    .split(Regex("\\s+"))[1].toLong() * 1024,
            )
        }
    }

    @Serializable
    data class Jdk(val home: String, val version: String, val feature: Int, val vendor: String? = null) {
        companion object {
            /** Reads a JDK's `release` file; throws [NotAJdk] if [home] is not a JDK of 21 or later. */
            fun read(home: File): Jdk {
                val release = File(home, "release")
                if (!File(home, "bin/java").canExecute() || !release.isFile) {
                    throw NotAJdk("$home is not a JDK home (no bin/java and release file); pass one with JDK=21 or JDK=25")
                }
                val lines = release.readLines()
                fun field(key: String) = lines.firstOrNull { it.startsWith("$key=") }?.substringAfter('=')?.trim('"')
                val version = field("JAVA_VERSION") ?: throw NotAJdk("$release has no JAVA_VERSION; pass a JDK with JDK=21 or JDK=25")
                val feature = version.substringBefore('.').toInt()
                if (feature < 21) throw NotAJdk("$home is JDK $version; the servers need 21 or later (JDK=21 or JDK=25)")
                return Jdk(home.path, version, feature, field("IMPLEMENTOR"))
            }

            /** The JDK running this program. */
            fun current() = Jdk(
                System.getProperty("java.home"),
                Runtime.version().toString(),
                Runtime.version().feature(),
                System.getProperty("java.vendor"),
            )
        }
    }

    companion object {
        const val RUNNING = "running"
        const val COMPLETE = "complete"
        const val FAILED = "failed"
        const val INCOMPLETE = "incomplete"

        /**
         * The header of a run starting now, from [repo]'s checkout; [sourceCommit] and [sourceDirty]
         * instead where the repository is not beside the jars (make bench-vps ships jars only).
         */
        fun start(command: String, jdk: Jdk, repo: File, sourceCommit: String? = null, sourceDirty: Boolean = false): Provenance {
            val porcelain = if (sourceCommit != null) {
                ""
            } else {
                RunFolder.commandText("git", "-C", repo.path, "status", "--porcelain", "-z", "--untracked-files=normal")
            }
            return Provenance(
                status = RUNNING,
                command = command,
                startedAt = OffsetDateTime.now().toString(),
                host = Host.read(),
                jdk = jdk,
                gitCommit = sourceCommit ?: RunFolder.commandText("git", "-C", repo.path, "rev-parse", "HEAD").trim(),
                gitDirty = if (sourceCommit != null) sourceDirty else porcelain.isNotBlank(),
                gitDirtyPaths = changedPaths(porcelain).take(DIRTY_PATHS_KEPT),
            )
        }

        /**
         * The paths a `git status --porcelain -z` output names: NUL-separated entries, each two status letters and a space before
         * its path, unquoted; a rename or copy (`R`, `C`) is followed by the path it came from, which is not a change of its own.
         * Output of another form (git's own error, where the folder is no checkout) names none.
         */
        fun changedPaths(porcelain: String): List<String> {
            val paths = mutableListOf<String>()
            val entries = porcelain.split('\u0000').iterator()
            while (entries.hasNext()) {
                val entry = entries.next()
                if (entry.length <= 3 || entry[2] != ' ') continue
                paths += entry.substring(3)
                if ((entry[0] == 'R' || entry[0] == 'C') && entries.hasNext()) entries.next()
            }
            return paths
        }

        /** Enough to tell a changed note from changed code; past it the paths are left out. */
        const val DIRTY_PATHS_KEPT = 20

        /** This program's own command line, as the manifest records it. */
        fun thisCommand(fallback: String): String = ProcessHandle.current().info().commandLine().orElse(fallback)
    }
}

/** A folder given as a JDK home that is not one of 21 or later: bad input, said in one line. */
class NotAJdk(message: String) : IllegalArgumentException(message)
