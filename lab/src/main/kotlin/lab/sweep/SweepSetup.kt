package lab.sweep

import lab.bench.collect.JfrProfile
import lab.bench.host.CpuSplit
import lab.bench.host.Preflight
import lab.bench.load.Wrk
import lab.support.JvmFlags
import java.io.File

/** What every pass of a sweep shares. */
data class SweepSetup(
    val repo: File,
    val java: File,
    val jdkFeature: Int,
    val heapMb: Int,
    val cpuSplit: CpuSplit?,
    val wrk: Wrk,
    val workloads: List<SweepWorkload>,
    val concurrencies: List<Int>,
    val delayMs: Long,
    val warmupSeconds: Int,
    val codeWarmupMaxSeconds: Int,
    val seconds: Int,
    /** Per process, hard: [SweepWorkload.highestConcurrency] keeps every step under it. */
    val openFilesLimit: Long,
    /** JFR's samples over each step's measured window, when asked for: where the CPU went, at some cost in it. */
    val profile: JfrProfile? = null,
) {
    /** The bench's flags, the same for every server: a fixed heap, ZGC, NMT, and the CPU count of the server's set. */
    val serverFlags: List<String> = JvmFlags.forServer(heapMb, jdkFeature) + listOfNotNull(cpuSplit?.activeProcessorCountFlag)

    val loadCpuList: String? = cpuSplit?.let { CpuSplit.cpuList(it.loadCpus) }

    /** wrk gives a request up after the slowest answer the contract allows: the downstream timeout, past the delay. */
    val timeoutSeconds: Int = ((delayMs + lab.handlers.Limits().downstreamTimeoutMs) / 1000 + 5).toInt()

    /** The first requests spread over one delay; the count starts once every connection has had an answer, a delay later. */
    val window: Wrk.Window = Wrk.Window(spreadMs = delayMs, fromMs = (2 * delayMs).coerceAtMost(seconds * 1000L / 2))

    /** Two delays into the warm-up, by when every connection has had an answer and asked again, but at least a second. */
    val snapshotAfterMs: Long = maxOf(1_000L, 2 * delayMs)

    fun highestConcurrency(workload: SweepWorkload): Int = workload.highestConcurrency(openFilesLimit)

    /**
     * The most threads a bounded pool may start (`--threads`): one for each request in flight at the highest C and one for each
     * downstream call it makes at once, so that the pool's setting never stops a step; the model and the host do.
     */
    val poolThreads: Int = Preflight.threadsFor(concurrencies.max()) + Preflight.THREAD_HEADROOM
}
