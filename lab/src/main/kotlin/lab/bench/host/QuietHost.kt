package lab.bench.host

import kotlinx.serialization.Serializable
import lab.bench.collect.ProcStat
import java.io.File
import java.util.Locale

/**
 * Whether the host is quiet enough to measure on, checked before the run and between passes.
 * On two cores, another `make bench` or a build beside the run takes CPU from the server or from
 * k6, and the figures then differ from run to run for a reason no file of the run shows.
 *
 * The check reads the host ([Reading]: facts, kept in the run folder) and judges it ([Verdict]):
 * another lab run is refused, since two runs would each measure the other; other CPU use and a
 * high load average mark the run, with the reason, for the report to show. This harness's own
 * process tree (itself, the stub, k6, a server) is not "other".
 *
 * ```
 * val check = QuietHost.check()
 * if (check.verdict == QuietHost.Verdict.REFUSE) error(check.reasons.joinToString("; "))
 * ```
 */
object QuietHost {
    /**
     * Other processes may use up to a quarter of a core on average before the run is marked.
     * That is about what a server pinned to its CPU used for the whole /json load at the mission's
     * rate, so more is enough to move its latency; an idle host's daemons stay far below it.
     */
    const val OTHER_CORES_MARK_ABOVE = 0.25

    /**
     * The hypervisor may take up to the same quarter of a core from this VM (its steal time) before the run is marked: CPU
     * the server and k6 wait for as they would for another process, but that no process table of this host shows, and
     * that moved a whole run's figures here (docs/JOURNAL.md, "A pass's time").
     */
    const val STEAL_CORES_MARK_ABOVE = OTHER_CORES_MARK_ABOVE

    /** Long enough to see a busy process as busy, short enough to run between passes. */
    const val WINDOW_MS = 2_000L

    /** How many of the busiest other processes a reading names: enough to say which to stop. */
    const val BUSIEST_NAMED = 5

    /** What a run may do on this host now. */
    enum class Verdict {
        QUIET,

        /** The run goes on, and its figures carry the reasons. */
        MARK,

        /** Another lab run is going: measuring now would measure both. */
        REFUSE,
    }

    @Serializable
    data class Reading(
        val windowSeconds: Double,
        /** Cores used over the window by every process outside this harness's tree. */
        val otherCores: Double,
        /** The busiest of those processes, busiest first. */
        val busiest: List<ProcessCpu>,
        /** The 1-minute load average: runnable and uninterruptible tasks, averaged by the kernel. */
        val loadAverage1m: Double,
        val onlineCpus: Int,
        /** Cores of this VM's CPU time the hypervisor gave to others over the window (/proc/stat's steal); 0 on bare metal. */
        val stealCores: Double = 0.0,
        /** Lab programs running outside this harness's tree and its ancestors. */
        val otherLabRuns: List<LabProcess>,
    )

    /** A process and the cores it used; [command] is what it runs, as [ProcessTable.shortCommand] puts it. */
    @Serializable
    data class ProcessCpu(val pid: Long, val cores: Double, val command: String)

    /** A lab program: [command] says what it runs, [commandLine] (whole) also from which checkout. */
    @Serializable
    data class LabProcess(val pid: Long, val command: String, val commandLine: String)

    @Serializable
    data class Check(val reading: Reading, val verdict: Verdict, val reasons: List<String>)

    /**
     * Reads the host over [windowMs] and judges it. Between passes ([betweenPasses]) the load
     * average still counts the pass that just ended (it decays over minutes), so it is recorded
     * but not judged; the CPU window, which leaves out this harness's tree, is.
     */
    fun check(betweenPasses: Boolean = false, windowMs: Long = WINDOW_MS): Check = judge(read(windowMs), betweenPasses)

    /** The host over the next [windowMs], seen from process [self] (by default this harness). */
    fun read(windowMs: Long = WINDOW_MS, self: Long = ProcessHandle.current().pid()): Reading {
        val before = ProcessTable.read()
        val statBefore = ProcStat.read()
        val startNs = System.nanoTime()
        Thread.sleep(windowMs)
        val after = ProcessTable.read()
        val stat = ProcStat.read()
        val windowSeconds = (System.nanoTime() - startNs) / 1e9
        val ours = before.treeOf(self) + after.treeOf(self)
        // A lab program that started this one (a test JVM, the audit) waits for it: part of the same run.
        val oursOrAbove = ours + after.ancestorsOf(self)
        val others = otherCores(before, after, windowSeconds, ours)
        return Reading(
            windowSeconds = windowSeconds,
            otherCores = others.values.sum(),
            busiest = others.entries.sortedByDescending { it.value }.take(BUSIEST_NAMED)
                .map { (pid, cores) -> ProcessCpu(pid, cores, describe(pid, after)) },
            loadAverage1m = parseLoadAverage1m(File("/proc/loadavg").readText()),
            onlineCpus = stat.byCpu.size,
            stealCores = (stat.stealShare(statBefore) ?: 0.0) * stat.byCpu.size,
            otherLabRuns = after.processes.keys.filter { it !in oursOrAbove }
                .mapNotNull { pid ->
                    ProcessTable.commandLine(pid)?.takeIf(::isLabRun)?.let {
                        LabProcess(pid, ProcessTable.shortCommand(it), it.joinToString(" "))
                    }
                }
                .sortedBy { it.pid },
        )
    }

    /**
     * The cores each process outside [ours] used between two tables [windowSeconds] apart. One that
     * started meanwhile used all its CPU time in the window; one that exited meanwhile is not seen.
     */
    fun otherCores(before: ProcessTable, after: ProcessTable, windowSeconds: Double, ours: Set<Long>): Map<Long, Double> =
        after.processes.values.filter { it.pid !in ours }.associate { now ->
            val then = before.processes[now.pid]?.takeIf { it.startTicks == now.startTicks }
            val ticks = (now.cpuTicks - (then?.cpuTicks ?: 0)).coerceAtLeast(0)
            now.pid to ticks.toDouble() / ProcessTable.TICKS_PER_SECOND / windowSeconds
        }.filterValues { it > 0 }

    /** The verdict on [reading], with one sentence for each reason that says what to do. */
    fun judge(reading: Reading, betweenPasses: Boolean = false): Check {
        val refusals = buildList {
            val runs = reading.otherLabRuns
            if (runs.isNotEmpty()) {
                val named = runs.take(3).joinToString("; ") { "pid ${it.pid}: ${it.command}" }
                val pids = runs.joinToString(" ") { "${it.pid}" }
                add("another lab run is going ($named): wait for it to end, or stop it (kill $pids), and run again")
            }
        }
        val marks = buildList {
            if (reading.otherCores > OTHER_CORES_MARK_ABOVE) {
                val cores = decimals(2, reading.otherCores)
                val busiest = reading.busiest.take(3).joinToString(", ") {
                    "pid ${it.pid} ${it.command}: ${decimals(2, it.cores)}"
                }
                add(
                    "other processes used $cores cores over ${decimals(0, reading.windowSeconds)} s, above $OTHER_CORES_MARK_ABOVE " +
                        "(busiest: $busiest): they compete with the server and k6; stop them and run again for figures that compare",
                )
            }
            if (reading.stealCores > STEAL_CORES_MARK_ABOVE) {
                add(
                    "the hypervisor took ${decimals(2, reading.stealCores)} cores of this host's CPU over " +
                        "${decimals(0, reading.windowSeconds)} s (steal time, above $STEAL_CORES_MARK_ABOVE): other tenants of " +
                        "its machine are busy; run again later for figures that compare",
                )
            }
            if (!betweenPasses && reading.loadAverage1m > reading.onlineCpus) {
                val cpus = reading.onlineCpus
                add(
                    "the 1-minute load average is ${decimals(2, reading.loadAverage1m)} on $cpus CPU(s): tasks queue for CPU; " +
                        "wait until it is below $cpus (cat /proc/loadavg) and run again",
                )
            }
        }
        val verdict = when {
            refusals.isNotEmpty() -> Verdict.REFUSE
            marks.isNotEmpty() -> Verdict.MARK
            else -> Verdict.QUIET
        }
        return Check(reading, verdict, refusals + marks)
    }

    /**
     * A lab program (any experiment's, or a JVM one of them started): a `java` whose class path or `-jar` is the harness's
     * `lab.jar`, or whose main class is in one of the experiments' packages.
     */
    fun isLabRun(arguments: List<String>): Boolean {
        if (arguments.firstOrNull()?.substringAfterLast('/') != "java") return false
        return arguments.drop(1).any { argument ->
            argument.split(':').any { it.substringAfterLast('/') == LAB_JAR } || LAB_PROGRAMS.any { argument.startsWith(it) }
        }
    }

    /** /proc/loadavg's first field. */
    fun parseLoadAverage1m(text: String): Double = text.trim().substringBefore(' ').toDouble()

    private const val LAB_JAR = "lab.jar"
    private val LAB_PROGRAMS = listOf("lab.bench.", "lab.sweep.", "lab.floor.", "lab.autobahn.", "lab.clients.", "lab.audit.")

    private fun decimals(places: Int, value: Double): String = String.format(Locale.ROOT, "%.${places}f", value)

    /** A kernel thread has no command line: its name, in brackets as ps shows it. */
    private fun describe(pid: Long, table: ProcessTable): String =
        ProcessTable.commandLine(pid)?.takeIf { it.isNotEmpty() }?.let(ProcessTable::shortCommand) ?: "[${table.processes[pid]?.name}]"
}
