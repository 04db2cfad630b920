package lab.bench.collect

import lab.support.ProcView

/**
 * The CPU a JVM's own threads of one kind use, read from outside once a second for `cpu.csv`: its JIT compilers (`server_jit`)
 * its garbage collector (`server_gc`) and its VM thread (`server_vm`). What the server spent compiling, collecting or in VM
 * operations in a step is not what its requests cost: a path still compiling when a curve starts pays for it under the step's
 * budget (docs/under-load.md, "What moves a pass's limit"), and a collector that works longer, or a handshake with every one
 * of 15,000 threads, takes the budget from the requests.
 *
 * Finding the threads reads every thread's name, and the platform server has one thread a socket (15,000), so they are found
 * once and again every [rescanEvery] readings: a thread that starts between two scans is counted from the scan that finds it.
 * The first reading is taken at construction.
 */
class JvmThreadsCpu(
    private val view: ProcView,
    /** Whether a thread, by its kernel name (at most 15 characters), is of the kind: ProcView.isCompilerThread, isGcThread, ... */
    private val isOne: (String) -> Boolean,
    private val rescanEvery: Int = RESCAN_EVERY,
) {
    private var msByThread: Map<Long, Long> = emptyMap()
    private var readAtNs = 0L
    private var sinceScan = rescanEvery

    init {
        read(System.nanoTime())
    }

    /**
     * The cores the threads used since the last reading (those alive at both), at [nowNs] ([System.nanoTime]); null where the
     * last reading found none.
     */
    fun coresSinceLast(nowNs: Long): Double? {
        val (before, beforeNs) = msByThread to readAtNs
        read(nowNs)
        if (before.isEmpty() || nowNs <= beforeNs) return null
        val usedMs = msByThread.entries.sumOf { (tid, ms) -> before[tid]?.let { ms - it } ?: 0L }
        return (usedMs / ((nowNs - beforeNs) / 1e6)).takeIf { it >= 0 }
    }

    private fun read(nowNs: Long) {
        val tids = if (++sinceScan >= rescanEvery) view.threadIds(isOne).also { sinceScan = 0 } else msByThread.keys
        msByThread = tids.mapNotNull { tid -> view.threadCpuMs(tid)?.let { tid to it } }.toMap()
        readAtNs = nowNs
    }

    private companion object {
        const val RESCAN_EVERY = 30
    }
}
