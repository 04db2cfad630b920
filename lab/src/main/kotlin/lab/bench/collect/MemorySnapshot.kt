package lab.bench.collect

/**
 * A server's memory at one moment, split into its parts (the spec of `memory.csv`): taken
 * after a full GC, so that each part holds what the open sockets keep, not garbage. Each
 * component is in bytes and named as in memory.csv: `live_heap`, the `nmt_*` categories of
 * [NmtSummary.components], the kernel's (from [KernelMemory]), `rss` and `pss`.
 */
data class MemorySnapshot(
    /** On the pass's [RunClock]: when the snapshot started. */
    val timeS: Double,
    val phase: String,
    /** The server's own count of open WebSockets (`/stats`), read just before the GC. */
    val socketsOpen: Int,
    /** Bytes by component, in memory.csv's order. */
    val componentBytes: Map<String, Long>,
    /** The largest classes of the live heap, the largest first. */
    val largestClasses: List<HeapHistogram.Row>,
) {
    companion object {
        const val LIVE_HEAP = "live_heap"
        const val RSS = "rss"
        const val PSS = "pss"
    }
}
