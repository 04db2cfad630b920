package lab.bench

import kotlinx.serialization.Serializable
import lab.support.ServerEntry
import java.io.File

/**
 * `manifest.json`: everything needed to trust, compare and re-run a run. It is written when
 * the run starts (status `running`) and again when it ends: `complete`, `failed` (a server
 * failed; the others still ran) or `incomplete` (stopped by Ctrl-C or SIGTERM).
 */
@Serializable
data class Manifest(
    val status: String,
    /** Why a run stopped early, when that was not one server's failure (a load generator was lost). */
    val reason: String? = null,
    val command: String,
    val startedAt: String,
    val finishedAt: String? = null,
    val profileName: String,
    val profile: Profile,
    val preflight: Preflight.Decision,
    val limits: HostLimits,
    val host: Host,
    val serverJdk: Jdk,
    val harnessJdk: String,
    /** The JMX port in these flags differs per server; each server's is chosen free on loopback. */
    val jvmFlags: List<String>,
    val k6Version: String,
    val gitCommit: String,
    val gitDirty: Boolean,
    val servers: List<String>,
    /** What each of [servers] is (engine, model, traits), as servers.json declared it when the run started. */
    val catalogue: List<ServerEntry> = emptyList(),
    /** The shortest virtual-thread pinning JFR recorded, in ms (`--pin-threshold-ms`). */
    val pinThresholdMs: Long? = null,
    /** The /json rate every server ran at: the profile's, `--json-rate`'s, or the one [calibration] found. */
    val jsonRatePerSecond: Int? = null,
    val calibration: RateCalibration.Result? = null,
    /** Where the servers' `/dashboard` calls went during the run. */
    val stubUrl: String? = null,
    val outcomes: List<ServerOutcome> = emptyList(),
    /** Where the servers listened. */
    val bindAddress: String = "127.0.0.1",
    /** Empty: k6 ran on the server host and shared its CPU with the servers. Otherwise each host's k6 execution segment. */
    val loadGenerators: List<LoadGenerators.Segment> = emptyList(),
) {
    @Serializable
    data class Host(val hostname: String, val kernel: String, val cpuModel: String, val cpus: Int, val memoryBytes: Long) {
        companion object {
            fun read() = Host(
                hostname = File("/proc/sys/kernel/hostname").readText().trim(),
                kernel = File("/proc/sys/kernel/osrelease").readText().trim(),
                cpuModel = File("/proc/cpuinfo").useLines { lines -> lines.firstOrNull { it.startsWith("model name") } }
                    ?.substringAfter(':')?.trim() ?: "unknown",
                cpus = Runtime.getRuntime().availableProcessors(),
                memoryBytes = File("/proc/meminfo").useLines { lines -> lines.first { it.startsWith("MemTotal:") } }
                    .split(Regex("\\s+"))[1].toLong() * 1024,
            )
        }
    }

    @Serializable
    data class Jdk(val home: String, val version: String, val feature: Int) {
        companion object {
            /** Reads a JDK's `release` file; throws [BenchInputException] if [home] is not a JDK of 21 or later. */
            fun read(home: File): Jdk {
                val release = File(home, "release")
                if (!File(home, "bin/java").canExecute() || !release.isFile) {
                    throw BenchInputException("$home is not a JDK home (no bin/java and release file); pass one with JDK=21 or JDK=25")
                }
                val version = release.readLines().first { it.startsWith("JAVA_VERSION=") }.substringAfter('=').trim('"')
                val feature = version.substringBefore('.').toInt()
                if (feature < 21) throw BenchInputException("$home is JDK $version; the servers need 21 or later (JDK=21 or JDK=25)")
                return Jdk(home.path, version, feature)
            }
        }
    }
}
