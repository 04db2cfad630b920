package lab.bench.load

/**
 * How the lab runs k6's Go runtime: its garbage collector off until k6's memory reaches half
 * of the host's ([MEMORY_SHARE_DENOMINATOR]), then collecting to stay under that (Go's `GOGC=off`
 * with a `GOMEMLIMIT`), and each collection written to k6.log (`GODEBUG=gctrace=1`: one line a
 * collection, with when, how long, and the heap before and after), so a stall of k6's own is on
 * record beside the figures it would distort.
 *
 * Why: k6 runs on the load's CPUs, one of them on a 2-core host, and with Go's default (a
 * collection each time the heap doubles) its own collections were most of its latency. `/json`
 * alone at 2,000/s, with no output and a server that never collects (Epsilon): k6's p99 was
 * 24-33 ms with Go's default and 0.7-2.0 ms with this, on the same server, interleaved
 * (docs/under-load.md, "What k6's own outputs cost"). k6's resident memory grew about 30 MB a second there.
 *
 * Why half: with 15,000 idle sockets open and 3,600 VUs, k6's live heap is about 1.3 GB, and
 * a collection of it on the one CPU k6 has took 3 s of wall time, most of it k6's own requests
 * waiting to assist the collector. With a quarter (6 GiB here) the curve profile's pass first
 * collected 82 s in, at /json 2,000/s, and k6 dropped 6,332 iterations in that step with the
 * server 16% busy (docs/JOURNAL.md, an aborted run). k6 allocated about 64 MB a
 * second there; half the host (12 GiB) puts its first collection past the /json curve.
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
