package lab.bench.collect

import lab.bench.folder.SeriesCsv
import lab.bench.host.CpuBudget
import lab.bench.host.CpuSplit
import lab.support.ProcView
import java.io.File
import java.util.Locale
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * Samples who used the host's CPU once a second into `cpu.csv`: the cores each process of the
 * run used (the server, k6, the stub, the harness), the share the hypervisor stole, and how busy
 * the server's and the load's CPU sets were, and of the load's, how much the hypervisor stole. The JVM's own CPU figures (JFR) cannot say whether
 * the load generator, not the server, was the bottleneck; these can.
 *
 * A role's cell is empty while it has no process on this host (k6 on load generators) and once
 * its process has exited; the busy columns are empty without a [split]. Processes are given
 * by pid at construction or, once started, through [track]: k6 starts after the server.
 */
class CpuSampler(
    private val clock: RunClock,
    private val out: File,
    pids: Map<Role, Long>,
    private val split: CpuSplit?,
    /** The server's CPU budget, where the profile gives it one: each row says what was in effect, and how long it held the server back. */
    private val budget: CpuBudget? = null,
) : AutoCloseable {
    /** The processes `cpu.csv` has a column for, by their column names. */
    enum class Role(val column: String) { SERVER("server"), K6("k6"), STUB("stub"), HARNESS("harness"), VEGETA("vegeta"), WRK("wrk") }

    /**
     * One second of `cpu.csv`. Cores are CPU-seconds a second (1.0 is one core busy all the
     * interval); the shares are 0..1. Null is an empty cell.
     */
    data class Row(
        val timeS: Double,
        val phase: String,
        val serverCores: Double?,
        val k6Cores: Double?,
        val stubCores: Double?,
        val harnessCores: Double?,
        val steal: Double?,
        val serverCpusBusy: Double?,
        val loadCpusBusy: Double?,
        /** The curve's second load generator (VegetaCurve), where the profile gives it the curve: the attack of the moment. */
        val vegetaCores: Double? = null,
        /** The server's CPU budget in effect at the second's end, in cores (CpuBudget); null while it has none. */
        val serverBudgetCores: Double? = null,
        /** The seconds the budget held the server's threads back in the second (its group's throttled time); null without a budget. */
        val serverThrottledS: Double? = null,
        /** The cores the server's JIT compiler threads used ([JvmThreadsCpu]), of [serverCores]; null before its second reading. */
        val serverJitCores: Double? = null,
        /**
         * The share of the load's CPUs the hypervisor stole, of [loadCpusBusy]: what of the load's CPUs neither the lab's processes
         * nor any other program used, though they were not free. Null without a [split].
         */
        val loadCpusSteal: Double? = null,
        /** The cores the server's garbage collector's threads used ([JvmThreadsCpu]), of [serverCores]; null before its second reading. */
        val serverGcCores: Double? = null,
        /** The cores the server's VM thread used ([JvmThreadsCpu]), of [serverCores]; null before its second reading. */
        val serverVmCores: Double? = null,
        /** The curve's closed-loop generator (ClosedLoopStep), in the second it ran: wrk. */
        val wrkCores: Double? = null,
    )

    /** The last row written, for the progress line; null before the first second is over. */
    @Volatile
    var latest: Row? = null
        private set

    /** A process being followed: [handle] tells its exit, and a new process that reuses its pid, apart. */
    private class Tracked(val handle: ProcessHandle, val view: ProcView, val cpuMs: Long?, val atNs: Long)

    private val tracked = ConcurrentHashMap<Role, Tracked>()

    /** The server's JIT compiler threads, its collector's and its VM thread, from when it is tracked: set together. */
    private class ServerJvmThreads(view: ProcView) {
        val compilers = JvmThreadsCpu(view, ProcView::isCompilerThread)
        val collectors = JvmThreadsCpu(view, ProcView::isGcThread)
        val vmThread = JvmThreadsCpu(view, ProcView::isVmThread)
    }

    @Volatile private var serverThreads: ServerJvmThreads? = null
    private val rows = mutableListOf<Row>()
    private var lastStat: ProcStat? = null
    private var lastThrottledNs: Long? = null
    private val writer = SeriesCsv(out.bufferedWriter(), out.name, flushEachRow = true)
    private val timer = Executors.newSingleThreadScheduledExecutor { Thread(it, "cpu-sampler").apply { isDaemon = true } }

    init {
        pids.forEach(::track)
    }

    /** Follows [pid] as [role] from now on, in place of any process it had. */
    fun track(role: Role, pid: Long) {
        val handle = ProcessHandle.of(pid).orElse(null) ?: return
        val view = ProcView(pid)
        tracked[role] = Tracked(handle, view, view.cpuMs(), System.nanoTime())
        if (role == Role.SERVER) serverThreads = ServerJvmThreads(view)
    }

    /** Takes the first reading now; the first row follows a second later, as each row covers the second before it. */
    fun start() {
        lastStat = runCatching { ProcStat.read() }.getOrNull()
        lastThrottledNs = budget?.throttledNs()
        timer.scheduleAtFixedRate(::sampleOnce, 1, 1, TimeUnit.SECONDS)
    }

    /** Every row so far, oldest first. */
    fun rows(): List<Row> = synchronized(rows) { rows.toList() }

    // A periodic task that throws is never run again, so one bad reading must not escape.
    private fun sampleOnce() {
        runCatching {
            val nowNs = System.nanoTime()
            val stat = ProcStat.read()
            val before = lastStat
            lastStat = stat
            val throttledNs = budget?.throttledNs()
            val throttledBeforeNs = lastThrottledNs
            lastThrottledNs = throttledNs
            val at = clock.seconds()
            val serverCores = cores(Role.SERVER, nowNs)
            // After cores(SERVER): a server that has exited is no longer tracked, and has no compilers, collector or VM thread.
            val jvm = serverThreads?.takeIf { tracked[Role.SERVER] != null }
            val row = Row(
                timeS = at,
                phase = clock.phase(at),
                serverCores = serverCores,
                k6Cores = cores(Role.K6, nowNs),
                stubCores = cores(Role.STUB, nowNs),
                harnessCores = cores(Role.HARNESS, nowNs),
                steal = before?.let { stat.stealShare(it) },
                serverCpusBusy = split?.let { s -> before?.let { stat.busyShare(it, s.serverCpus) } },
                loadCpusBusy = split?.let { s -> before?.let { stat.busyShare(it, s.loadCpus) } },
                vegetaCores = cores(Role.VEGETA, nowNs),
                serverBudgetCores = budget?.inEffectCores,
                serverThrottledS = throttledNs?.let { now -> throttledBeforeNs?.let { (now - it) / 1e9 } },
                serverJitCores = jvm?.compilers?.coresSinceLast(nowNs),
                loadCpusSteal = split?.let { s -> before?.let { stat.stealShare(it, s.loadCpus) } },
                serverGcCores = jvm?.collectors?.coresSinceLast(nowNs),
                serverVmCores = jvm?.vmThread?.coresSinceLast(nowNs),
                wrkCores = cores(Role.WRK, nowNs),
            )
            latest = row
            synchronized(rows) { rows += row }
            writer.row(*cells(row).toTypedArray())
        }
    }

    /** The cores [role]'s process used since its last reading; null if it has none here or has exited. */
    private fun cores(role: Role, nowNs: Long): Double? {
        val was = tracked[role] ?: return null
        val cpuMs = if (was.handle.isAlive) was.view.cpuMs() else null
        if (cpuMs == null) {
            tracked.remove(role, was)
            return null
        }
        tracked.replace(role, was, Tracked(was.handle, was.view, cpuMs, nowNs))
        val elapsedMs = (nowNs - was.atNs) / 1e6
        val usedMs = was.cpuMs?.let { cpuMs - it } ?: return null
        return if (elapsedMs > 0 && usedMs >= 0) usedMs / elapsedMs else null
    }

    override fun close() {
        timer.shutdownNow()
        timer.awaitTermination(2, TimeUnit.SECONDS)
        writer.close()
    }

    companion object {
        /** A row's cells as `cpu.csv` has them: three decimals (clock ticks are 1/100 s, so no more is known), null for none. */
        fun cells(row: Row): List<String?> = listOf(
            row.timeS.toString(),
            row.phase,
            cell(row.serverCores),
            cell(row.k6Cores),
            cell(row.stubCores),
            cell(row.harnessCores),
            cell(row.steal),
            cell(row.serverCpusBusy),
            cell(row.loadCpusBusy),
            cell(row.vegetaCores),
            cell(row.serverBudgetCores),
            cell(row.serverThrottledS),
            cell(row.serverJitCores),
            cell(row.loadCpusSteal),
            cell(row.serverGcCores),
            cell(row.serverVmCores),
            cell(row.wrkCores),
        )

        private fun cell(value: Double?): String? = value?.let { String.format(Locale.ROOT, "%.3f", it) }
    }
}
