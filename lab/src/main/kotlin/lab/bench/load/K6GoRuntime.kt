package lab.bench.load

/**
 * How the lab runs k6's Go runtime: its garbage collector off until k6's memory reaches half
 * of the host's ([MEMORY_SHARE_DENOMINATOR]), then collecting to stay under that (Go's `GOGC=off`
 * with a `GOMEMLIMIT`), and each collection written to k6.log (`GODEBUG=gctrace=1`: one line a
 * collection, with when, how long, and the heap before and after), so a stall of k6's own is on
 * record beside the figures it would distort.
 *
 * Why: k6 runs on the load's CPUs, one of them on a 2-core host, and with Go's default (a
 * collection each time the heap doubles) its own collections were most of its latency
 * (docs/under-load.md, "What k6's own outputs cost").
 *
 * Why half: with the profile's idle sockets open and its VUs, one collection of k6's live heap
 * on its one CPU stalled its requests for seconds, and with a quarter the first came inside the
 * `/json` steps; half the host puts it past them (docs/JOURNAL.md, "The latency-throughput curve
 * with k6").
 */
object K6GoRuntime {
    /** k6 may take this fraction of the host's memory (1/2) before Go collects. */
    const val MEMORY_SHARE_DENOMINATOR = 2

    /** The environment for a k6 on this host. */
    fun environment(): Map<String, String> = environment(GoRuntime.hostMemoryBytes())

    fun environment(memoryTotalBytes: Long): Map<String, String> = GoRuntime.environment(memoryTotalBytes / MEMORY_SHARE_DENOMINATOR)

    /** The same, as shell assignments for a k6 on a load generator, which reads its own host's memory there. */
    val shellAssignments: String =
        "GOGC=off GODEBUG=gctrace=1 GOMEMLIMIT=\$((\$(awk '/^MemTotal:/ {print \$2}' /proc/meminfo) * 1024 / $MEMORY_SHARE_DENOMINATOR))"
}
