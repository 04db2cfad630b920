package lab.sweep

import java.io.File
import java.util.Locale

/**
 * The sweep's facts, one row a measured step in `sweep.csv` and one row a memory component in
 * `memory.csv` (long form, as the bench's), appended and flushed as each step ends so that a
 * stopped run keeps every step it finished. The analysis (labanalysis.sweep) computes every
 * rate, ratio and statistic from them.
 */
class SweepCsv(dir: File) : AutoCloseable {
    private val steps = File(dir, STEPS).bufferedWriter().apply { appendLine(STEP_COLUMNS.joinToString(",")) }
    private val memory = File(dir, MEMORY).bufferedWriter().apply { appendLine(MEMORY_COLUMNS.joinToString(",")) }

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
        val serverCpusBusy: Double?,
        val loadCpusBusy: Double?,
        val threadsPeak: Int,
        val threadsMean: Double,
        val rssBytesPeak: Long,
        /** The server's own count of requests in flight, read in the middle of the window. */
        val serverInFlight: Int?,
    )

    fun append(step: Step) {
        val w = step.wrk
        val statuses = w.statuses.entries.sortedBy { it.key }.joinToString(";") { "${it.key}=${it.value}" }
        steps.appendLine(
            listOf(
                step.pass, step.server, step.workload.slug, step.delayMs, step.concurrency,
                w.durationUs, w.requests, w.windowFromMs, w.answeredInWindow, statuses,
                w.errors.connect, w.errors.read, w.errors.write, w.errors.timeout,
                w.latencyUs.p50, w.latencyUs.p90, w.latencyUs.p99, w.latencyUs.p999, w.latencyUs.max,
                fixed(step.serverCpuSeconds), step.stubCpuSeconds?.let(::fixed) ?: "", w.cpuSeconds?.let(::fixed) ?: "",
                step.serverCpusBusy?.let(::fixed) ?: "", step.loadCpusBusy?.let(::fixed) ?: "",
                step.threadsPeak, fixed(step.threadsMean), step.rssBytesPeak, step.serverInFlight ?: "",
                fixed(step.serverJitCpuSeconds),
            ).joinToString(","),
        )
        steps.flush()
    }

    /** A memory snapshot: [concurrency] 0 at rest, before the workload's first request, else in the step's warm-up. */
    fun append(pass: Int, server: String, workload: String, concurrency: Int, snapshot: InFlightMemory.Snapshot) {
        for ((component, bytes) in snapshot.components) {
            memory.appendLine(
                listOf(pass, server, workload, concurrency, snapshot.inFlightBefore, snapshot.inFlightAfter, component, bytes)
                    .joinToString(","),
            )
        }
        memory.flush()
    }

    override fun close() {
        steps.close()
        memory.close()
    }

    companion object {
        const val STEPS = "sweep.csv"
        const val MEMORY = "memory.csv"
        val STEP_COLUMNS = listOf(
            "pass", "server", "workload", "delay_ms", "concurrency",
            "duration_us", "requests", "window_from_ms", "answered_in_window", "statuses",
            "errors_connect", "errors_read", "errors_write", "errors_timeout",
            "latency_us_p50", "latency_us_p90", "latency_us_p99", "latency_us_p999", "latency_us_max",
            "server_cpu_s", "stub_cpu_s", "wrk_cpu_s", "server_cpus_busy", "load_cpus_busy",
            "threads_peak", "threads_mean", "rss_bytes_peak", "server_in_flight",
            "server_jit_cpu_s",
        )
        val MEMORY_COLUMNS =
            listOf("pass", "server", "workload", "concurrency", "in_flight_before", "in_flight_after", "component", "bytes")

        private fun fixed(value: Double) = "%.4f".format(Locale.ROOT, value)
    }
}
