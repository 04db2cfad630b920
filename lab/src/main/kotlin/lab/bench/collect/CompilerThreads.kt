package lab.bench.collect

import lab.support.ProcView

/**
 * The CPU a JVM's JIT compilers use, read from outside once a second for `cpu.csv`'s `server_jit`: what the server spent
 * compiling in a step is not what its requests cost, and a path still compiling when a curve starts pays for it under the
 * step's budget (Ktor's `/dashboard` compiled for over a minute from a cold start; docs/under-load.md, "What moves a pass's
 * limit").
 *
 * Finding the compiler threads reads every thread's name, and the platform server has one thread a socket (15,000), so they
 * are found once and again every [rescanEvery] readings: the JVM's flags give it one C1 and one C2 thread (one CPU), and
 * a thread that starts between two scans is counted from the scan that finds it. The first reading is taken at construction.
 */
class CompilerThreads(private val view: ProcView, private val rescanEvery: Int = RESCAN_EVERY) {
    private var msByThread: Map<Long, Long> = emptyMap()
    private var readAtNs = 0L
    private var sinceScan = rescanEvery

    init {
        read(System.nanoTime())
    }

    /**
     * The cores the compiler threads used since the last reading (those alive at both), at [nowNs] ([System.nanoTime]); null
     * where the last reading found none.
     */
    fun coresSinceLast(nowNs: Long): Double? {
        val (before, beforeNs) = msByThread to readAtNs
        read(nowNs)
        if (before.isEmpty() || nowNs <= beforeNs) return null
        val usedMs = msByThread.entries.sumOf { (tid, ms) -> before[tid]?.let { ms - it } ?: 0L }
        return (usedMs / ((nowNs - beforeNs) / 1e6)).takeIf { it >= 0 }
    }

    private fun read(nowNs: Long) {
        val tids = if (++sinceScan >= rescanEvery) view.jitThreadIds().also { sinceScan = 0 } else msByThread.keys
        msByThread = tids.mapNotNull { tid -> view.threadCpuMs(tid)?.let { tid to it } }.toMap()
        readAtNs = nowNs
    }

    private companion object {
        const val RESCAN_EVERY = 30
    }
}
