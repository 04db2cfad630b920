package lab.bench.collect

import lab.support.ProcView

/**
 * The CPU a JVM's JIT compilers use, read from outside once a second for `cpu.csv`'s `server_jit`: what the server spent
 * compiling in a step is not what its requests cost, and a path still compiling when a curve starts pays for it under the
 * step's budget (Ktor's `/dashboard`: its compilers used 34-44% of a CPU for 20 s at 200/s on a whole CPU from a cold start,
 * and fell under 1% only after 70 s; docs/under-load.md, "What moves a pass's limit").
 *
 * Finding the compiler threads reads every thread's name, and the platform server has one thread a socket (15,000), so they
 * are found once and again every [rescanEvery] readings: the JVM's flags give it one C1 and one C2 thread (one CPU), and
 * a thread that starts between two scans is counted from the scan that finds it.
 */
class CompilerThreads(private val view: ProcView, private val rescanEvery: Int = RESCAN_EVERY) {
    private var msByThread: Map<Long, Long> = emptyMap()
    private var sinceScan = rescanEvery

    /** The ms the compiler threads used since the last call: those alive at both readings. Null on the first call. */
    fun usedMsSinceLast(): Long? {
        val tids = if (++sinceScan >= rescanEvery) view.jitThreadIds().also { sinceScan = 0 } else msByThread.keys
        val now = tids.mapNotNull { tid -> view.threadCpuMs(tid)?.let { tid to it } }.toMap()
        val before = msByThread
        msByThread = now
        if (before.isEmpty()) return null
        return now.entries.sumOf { (tid, ms) -> before[tid]?.let { ms - it } ?: 0L }
    }

    private companion object {
        const val RESCAN_EVERY = 30
    }
}
