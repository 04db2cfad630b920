package lab.bench.load

import java.io.File

/**
 * How the lab runs k6's Go runtime: its garbage collector off until k6's memory reaches a quarter
 * of the host's ([MEMORY_SHARE_DENOMINATOR]), then collecting to stay under that (Go's `GOGC=off`
 * with a `GOMEMLIMIT`).
 *
 * Why: k6 runs on the load's CPUs, one of them on a 2-core host, and with Go's default (a
 * collection each time the heap doubles) its own collections were most of its latency. `/json`
 * alone at 2,000/s, with no output and a server that never collects (Epsilon): k6's p99 was
 * 24-33 ms with Go's default and 0.7-2.0 ms with this, on the same server, interleaved
 * (docs/under-load.md, "What k6's own outputs cost"). k6's resident memory grew about 30 MB a second there,
 * so on this host (24 GiB, a 6 GiB limit) it first collects after a few minutes of a pass.
 */
object K6GoRuntime {
    /** k6 may take this fraction of the host's memory (1/4) before Go collects. */
    const val MEMORY_SHARE_DENOMINATOR = 4

    /** The environment for a k6 on this host. */
    fun environment(): Map<String, String> = environment(memoryTotalBytes())

    fun environment(memoryTotalBytes: Long): Map<String, String> =
        mapOf("GOGC" to "off", "GOMEMLIMIT" to (memoryTotalBytes / MEMORY_SHARE_DENOMINATOR).toString())

    /** The same, as shell assignments for a k6 on a load generator, which reads its own host's memory there. */
    val shellAssignments: String =
        "GOGC=off GOMEMLIMIT=\$((\$(awk '/^MemTotal:/ {print \$2}' /proc/meminfo) * 1024 / $MEMORY_SHARE_DENOMINATOR))"

    private fun memoryTotalBytes(): Long = File("/proc/meminfo").useLines { lines ->
        lines.first { it.startsWith("MemTotal:") }.split(Regex("\\s+"))[1].toLong() * 1024
    }
}
