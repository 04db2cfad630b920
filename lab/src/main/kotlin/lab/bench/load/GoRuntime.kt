package lab.bench.load

import java.io.File

/**
 * A Go load generator's runtime as the lab runs it (k6's, [K6GoRuntime]; vegeta's, [VegetaCurve]): the collector off until the
 * program's memory reaches [environment]'s limit, then collecting to stay under it, and each collection a line of the program's
 * log (`GODEBUG=gctrace=1`). On the load's one CPU, Go's default (a collection each time the heap doubles) puts the collector's
 * marking between the requests and their answers, which the generator then counts as the server's latency.
 */
object GoRuntime {
    fun environment(memoryLimitBytes: Long): Map<String, String> =
        mapOf("GOGC" to "off", "GOMEMLIMIT" to memoryLimitBytes.toString(), "GODEBUG" to "gctrace=1")

    fun hostMemoryBytes(): Long = File("/proc/meminfo").useLines { lines ->
        lines.first { it.startsWith("MemTotal:") }.split(Regex("\\s+"))[1].toLong() * 1024
    }
}
