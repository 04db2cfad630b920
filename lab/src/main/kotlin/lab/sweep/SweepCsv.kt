package lab.sweep

import lab.bench.folder.RunFolderFormat
import lab.bench.folder.SeriesCsv
import lab.bench.load.WrkResult
import java.io.File
import java.util.Locale

/**
 * The sweep's facts, one row a measured step in `sweep.csv`, one row a memory component in
 * `memory.csv` (long form, as the bench's), and one row a thread family of a measured step in
 * `threads.csv`, appended and flushed as each step ends so that a stopped run keeps every step
 * it finished. Their columns are run-folder.json's (`experiments.sweep`). The analysis
 * (labanalysis.sweep.sweep) computes every rate, ratio and statistic from them.
 */
class SweepCsv(dir: File) : AutoCloseable {
    private val steps = SeriesCsv.create(dir, STEPS, flushEachRow = true, series = RunFolderFormat.experiment(KIND, STEPS))
    private val memory = SeriesCsv.create(dir, MEMORY, series = RunFolderFormat.experiment(KIND, MEMORY))
    private val threads = SeriesCsv.create(dir, THREADS, series = RunFolderFormat.experiment(KIND, THREADS))

    /** One measured step: what wrk counted, and what the server, the stub and the CPUs did meanwhile. */
    data class Step(
        val pass: Int,
        val server: String,
        val workload: SweepWorkload,
        val delayMs: Long,
        val concurrency: Int,
        val wrk: WrkResult,
        val serverCpuSeconds: Double,
        /** Of [serverCpuSeconds], the JIT compilers' threads': near 0 once the warm-up has done its work. */
        val serverJitCpuSeconds: Double,
        val stubCpuSeconds: Double?,
        /** The downstream calls the stub took in the window, and the connections they came on; null if it did not say. */
        val stubCalls: StubCalls?,
        val serverCpusBusy: Double?,
        val loadCpusBusy: Double?,
        val threadsPeak: Int,
        val threadsMean: Double,
        val rssBytesPeak: Long,
        /** The server's own count of requests in flight, read in the middle of the window. */
        val serverInFlight: Int?,
        /** Of [serverCpuSeconds], each thread family's (ThreadFamilies): where the server's CPU went. */
        val serverCpuSecondsByThreads: Map<String, Double> = emptyMap(),
    )

    fun append(step: Step) {
        val w = step.wrk
        val statuses = w.statuses.entries.sortedBy { it.key }.joinToString(";") { "${it.key}=${it.value}" }
        steps.row(
            step.pass, step.server, step.workload.slug, step.delayMs, step.concurrency,
            w.durationUs, w.requests, w.windowFromMs, w.answeredInWindow, statuses.ifEmpty { null },
            w.errors.connect, w.errors.read, w.errors.write, w.errors.timeout,
            w.latencyUs.p50, w.latencyUs.p90, w.latencyUs.p99, w.latencyUs.p999, w.latencyUs.max,
            fixed(step.serverCpuSeconds), step.stubCpuSeconds?.let(::fixed), w.cpuSeconds?.let(::fixed),
            step.serverCpusBusy?.let(::fixed), step.loadCpusBusy?.let(::fixed),
            step.threadsPeak, fixed(step.threadsMean), step.rssBytesPeak, step.serverInFlight,
            fixed(step.serverJitCpuSeconds), step.stubCalls?.calls, step.stubCalls?.connections,
        )
        for ((family, seconds) in step.serverCpuSecondsByThreads.entries.sortedByDescending { it.value }) {
            threads.row(step.pass, step.server, step.workload.slug, step.concurrency, family, fixed(seconds))
        }
        threads.flush()
    }

    /** A memory snapshot: [concurrency] 0 at rest, before the workload's first request, else in the step's warm-up. */
    fun append(pass: Int, server: String, workload: String, concurrency: Int, snapshot: InFlightMemory.Snapshot) {
        for ((component, bytes) in snapshot.components) {
            memory.row(pass, server, workload, concurrency, snapshot.inFlightBefore, snapshot.inFlightAfter, component, bytes)
        }
        memory.flush()
    }

    override fun close() {
        steps.close()
        memory.close()
        threads.close()
    }

    companion object {
        const val KIND = "sweep"
        const val STEPS = "sweep.csv"
        const val MEMORY = "memory.csv"
        const val THREADS = "threads.csv"

        private fun fixed(value: Double) = "%.4f".format(Locale.ROOT, value)
    }
}
