package lab.support

import java.io.File

/**
 * A process as /proc shows it, read from outside, so that every server (and the client probe
 * itself) is measured the same way whatever runs inside it. The lab's one /proc reader: the
 * bench's samples, the client experiments' CPU and threads, the audit's and the tests' thread
 * counts. Each reading is null once the process is gone.
 */
class ProcView(val pid: Long) {
    /** User plus system CPU time in ms. /proc counts in clock ticks, 100 a second on Linux (USER_HZ). */
    fun cpuMs(): Long? = runCatching { cpuMsIn(File("/proc/$pid/stat")) }.getOrNull()

    /** `Threads:` of /proc/<pid>/status, the JVM's own threads included. */
    fun threads(): Int? = runCatching { status().threads }.getOrNull()

    /** User plus system CPU time in ms of the process's threads whose kernel name (at most 15 characters) matches [name]. */
    fun threadsCpuMs(name: (String) -> Boolean): Long = threadIds(name).sumOf { threadCpuMs(it) ?: 0L }

    /** The ids of the process's threads whose kernel name (at most 15 characters) matches [name]. */
    fun threadIds(name: (String) -> Boolean): List<Long> = File("/proc/$pid/task").listFiles().orEmpty().mapNotNull { task ->
        runCatching { task.name.toLong().takeIf { name(File(task, "comm").readText().trim()) } }.getOrNull()
    }

    /** User plus system CPU time in ms of the process's thread [tid]; null once it is gone. */
    fun threadCpuMs(tid: Long): Long? = runCatching { cpuMsIn(File("/proc/$pid/task/$tid/stat")) }.getOrNull()

    /** Each of the process's threads with its kernel name and CPU time in ms, read one after another; one gone meanwhile is left out. */
    fun threadsCpu(): List<ThreadCpu> = File("/proc/$pid/task").listFiles().orEmpty().mapNotNull { task ->
        runCatching {
            val stat = File(task, "stat").readText()
            ThreadCpu(task.name.toLong(), stat.substringAfter('(').substringBeforeLast(')'), cpuMsOf(stat))
        }.getOrNull()
    }

    /** CPU time in ms of a JVM's JIT compiler threads (`C1 CompilerThre`, `C2 CompilerThre`, as the kernel names them). */
    fun jitCpuMs(): Long = threadsCpuMs { isCompilerThread(it) }

    /** The names of the process's threads as the kernel has them (at most 15 characters each). */
    fun threadNames(): List<String> = File("/proc/$pid/task").listFiles().orEmpty()
        .mapNotNull { task -> runCatching { File(task, "comm").readText().trim() }.getOrNull() }

    /** Resident and proportional set size, threads, open file descriptors and memory maps, read together. */
    fun memory(): Memory? = runCatching {
        val status = status()
        Memory(
            rssBytes = status.kib("VmRSS:") * 1024,
            pssBytes = Status(File("/proc/$pid/smaps_rollup").readLines()).kib("Pss:") * 1024,
            threads = status.threads,
            fds = File("/proc/$pid/fd").list()?.size ?: 0,
            maps = File("/proc/$pid/maps").useLines { it.count() },
        )
    }.getOrNull()

    /** One thread: its id, its kernel name (at most 15 characters) and its user plus system CPU time in ms. */
    data class ThreadCpu(val tid: Long, val name: String, val cpuMs: Long)

    data class Memory(val rssBytes: Long, val pssBytes: Long, val threads: Int, val fds: Int, val maps: Int)

    private fun status() = Status(File("/proc/$pid/status").readLines())

    /** utime plus stime of a process's or a thread's `stat`, in ms. */
    private fun cpuMsIn(stat: File): Long = cpuMsOf(stat.readText())

    private fun cpuMsOf(stat: String): Long {
        // The command name, in parentheses, may hold spaces: the fields are counted after its closing one.
        val fields = stat.substringAfterLast(')').trim().split(' ')
        return (fields[11].toLong() + fields[12].toLong()) * 1000 / USER_HZ
    }

    /** `Key:   value [kB]` lines, as /proc/<pid>/status and smaps_rollup have them. */
    private class Status(private val lines: List<String>) {
        fun kib(key: String): Long = value(key).split(Regex("\\s+")).first().toLong()

        val threads: Int get() = value("Threads:").toInt()

        private fun value(key: String) = lines.first { it.startsWith(key) }.substringAfter(':').trim()
    }

    companion object {
        private const val USER_HZ = 100

        fun self() = ProcView(ProcessHandle.current().pid())

        /** Whether a thread's kernel name is a JVM's JIT compiler's (`C1 CompilerThre`, `C2 CompilerThre`). */
        fun isCompilerThread(name: String) = "CompilerThre" in name

        /**
         * Whether a thread's kernel name is a JVM's garbage collector's: ZGC's (`ZWorkerYoung#0`, `ZWorkerOld#0`, `ZDriverMajor`,
         * `ZDirector`, `ZStat`, `ZUncommitter#0`; before JDK 23 `ZWorker#0`, `ZDriver`), the runtime workers ZGC's pauses run
         * on (`RuntimeWorker#0`), and G1's or Parallel's (`GC Thread#0`, `G1 Conc#0`, `G1 Main Marker`, `G1 Refine#0`,
         * `G1 Service`). The VM thread, which runs every safepoint's operation and Serial's collections, is left out.
         */
        fun isGcThread(name: String) = GC_THREAD.containsMatchIn(name)

        /**
         * Whether a thread is the JVM's VM thread, which runs every VM operation: the safepoints, and the handshakes with every
         * thread that ZGC's cycles ask for, done on a blocked thread's behalf (so the more threads a server holds, the longer).
         */
        fun isVmThread(name: String) = name == "VM Thread"

        private val GC_THREAD = Regex("^(Z(Worker|Driver|Director|Stat|Uncommitter)|RuntimeWorker#|GC Thread#|G1 )")
    }
}
