package lab.bench.host

import kotlinx.serialization.Serializable
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * How a run divides this host's CPUs: [serverCpus] for the server alone, [loadCpus] for
 * everything that makes or watches the load (k6, the stub, the harness). Without it k6 and the
 * server take CPU from each other, and a server that looks slow may only be starved by its
 * own load generator. As written in the manifest: `{"serverCpus": [1], "loadCpus": [0]}`.
 *
 * The profile declares how many CPUs the server gets; [forThisHost] turns that into CPU numbers.
 * Then:
 * - the server starts under [serverCommandPrefix] with [activeProcessorCountFlag] among its JVM
 *   flags, so that Netty, `Dispatchers.Default` and the virtual-thread scheduler size to its set;
 * - the harness calls [pinToLoadCpus] on itself once, before it starts the stub or k6, which
 *   inherit its CPUs from then on.
 */
@Serializable
data class CpuSplit(val serverCpus: List<Int>, val loadCpus: List<Int>) {
    init {
        require(serverCpus.isNotEmpty() && loadCpus.isNotEmpty()) { "a split gives the server and the load a CPU each at least" }
        require(serverCpus.intersect(loadCpus.toSet()).isEmpty()) { "the server's CPUs $serverCpus overlap the load's $loadCpus" }
    }

    /**
     * Put before the server's command: `taskset -c <its CPUs> java ...`. taskset sets its own
     * affinity and then execs the command, so the server keeps taskset's pid: the process the
     * harness started is the JVM it samples and stops.
     */
    fun serverCommandPrefix(): List<String> = listOf(TASKSET, "-c", cpuList(serverCpus))

    /** The JVM sizes its pools from this count, not from the host's CPUs, which it would otherwise see through taskset only in part. */
    val activeProcessorCountFlag: String get() = "-XX:ActiveProcessorCount=${serverCpus.size}"

    /**
     * Moves every thread of process [pid] (by default this harness) onto [loadCpus]; processes
     * it starts afterwards inherit them. `taskset -a` walks the threads one by one, so a thread
     * started meanwhile by one not yet moved could keep the old set: the threads are read back
     * and the move is made once more if any kept it. Throws if they cannot be moved.
     */
    fun pinToLoadCpus(pid: Long = ProcessHandle.current().pid()) {
        repeat(2) {
            val taskset = ProcessBuilder(TASKSET, "-a", "-p", "-c", cpuList(loadCpus), pid.toString()).redirectErrorStream(true).start()
            // Two short lines a thread: far less than a pipe holds, so it can be read after the exit.
            if (!taskset.waitFor(TASKSET_TIMEOUT_S, TimeUnit.SECONDS)) {
                taskset.destroyForcibly()
                throw IllegalStateException("taskset did not move process $pid within $TASKSET_TIMEOUT_S s")
            }
            val output = taskset.inputStream.bufferedReader().readText().trim()
            if (taskset.exitValue() != 0) throw IllegalStateException("taskset could not move process $pid onto CPUs $loadCpus: $output")
            if (threadsOutside(pid, loadCpus).isEmpty()) return
        }
        throw IllegalStateException("threads ${threadsOutside(pid, loadCpus)} of process $pid kept CPUs other than $loadCpus")
    }

    companion object {
        /** From util-linux, on every Linux host the lab runs on; [forThisHost] checks that it is there. */
        const val TASKSET = "taskset"

        private const val TASKSET_TIMEOUT_S = 10L

        /**
         * The split for a profile that gives the server [serverCpuCount] CPUs (0: no split), among
         * the CPUs this process may use. Throws [PreflightRefusal] with the reason when the host
         * cannot have it.
         */
        fun forThisHost(serverCpuCount: Int): CpuSplit? {
            if (serverCpuCount == 0) return null
            if (onPath(TASKSET) == null) {
                throw PreflightRefusal(
                    listOf("the profile splits the CPUs, but $TASKSET is not on PATH: install util-linux, or declare serverCpus 0"),
                )
            }
            return plan(serverCpuCount, usableCpus())
        }

        /**
         * The server gets the highest-numbered [serverCpuCount] of [usable], the load the rest.
         * CPU 0 is where many hosts keep interrupts and housekeeping by default, so the server
         * takes the other end. Throws [PreflightRefusal] if the load would be left no CPU.
         */
        fun plan(serverCpuCount: Int, usable: List<Int>): CpuSplit? {
            require(serverCpuCount >= 0) { "serverCpus is $serverCpuCount; it counts CPUs, 0 for no split" }
            if (serverCpuCount == 0) return null
            val sorted = usable.distinct().sorted()
            if (serverCpuCount >= sorted.size) {
                throw PreflightRefusal(
                    listOf(
                        "the profile gives the server $serverCpuCount CPU(s), but this process may use only ${sorted.size} " +
                            "(CPUs ${cpuList(sorted)}), which leaves k6, the stub and the harness none: " +
                            "declare serverCpus ${sorted.size - 1} or fewer (0: no split), or run on a host with more CPUs",
                    ),
                )
            }
            return CpuSplit(serverCpus = sorted.takeLast(serverCpuCount), loadCpus = sorted.dropLast(serverCpuCount))
        }

        /**
         * The CPUs this process may run on: its affinity (`Cpus_allowed_list`, which a cpuset or an
         * outer taskset narrows) among those online. Read it before [pinToLoadCpus], which narrows it.
         */
        fun usableCpus(): List<Int> {
            val allowed = File("/proc/self/status").useLines { lines ->
                lines.first { it.startsWith("Cpus_allowed_list:") }.substringAfter(':').trim()
            }
            // Some hypervisors report every possible CPU as allowed, not only the online ones.
            val online = File("/sys/devices/system/cpu/online").takeIf { it.canRead() }?.readText()?.trim()
            return parseCpuList(allowed).filter { online == null || it in parseCpuList(online) }
        }

        /** The kernel's CPU-list format (`0-3,8,10-11`, as in Cpus_allowed_list and sysfs), as CPU numbers in order. */
        fun parseCpuList(text: String): List<Int> = text.trim().split(',').filter { it.isNotBlank() }.flatMap { part ->
            val bounds = part.trim().split('-').map { it.trim().toInt() }
            require(bounds.size in 1..2 && bounds.first() <= bounds.last()) { "not a CPU list: $text" }
            (bounds.first()..bounds.last()).toList()
        }.distinct().sorted()

        /** CPU numbers in the form taskset -c and the kernel take: runs of consecutive CPUs as ranges (`0-3,8`). */
        fun cpuList(cpus: Collection<Int>): String {
            val runs = mutableListOf<IntRange>()
            for (cpu in cpus.distinct().sorted()) {
                val last = runs.lastOrNull()
                if (last != null && last.last == cpu - 1) runs[runs.size - 1] = last.first..cpu else runs += cpu..cpu
            }
            return runs.joinToString(",") { if (it.first == it.last) "${it.first}" else "${it.first}-${it.last}" }
        }

        /** The CPUs a process (or one of its threads, by its task id) may run on, from /proc; null once it is gone. */
        fun affinityOf(pid: Long, thread: Long = pid): List<Int>? = runCatching {
            File("/proc/$pid/task/$thread/status").useLines { lines ->
                parseCpuList(lines.first { it.startsWith("Cpus_allowed_list:") }.substringAfter(':'))
            }
        }.getOrNull()

        private fun threadsOutside(pid: Long, cpus: List<Int>): List<Long> = File("/proc/$pid/task").listFiles().orEmpty()
            .mapNotNull { it.name.toLongOrNull() }
            .filter { thread -> affinityOf(pid, thread)?.let { it.sorted() != cpus.sorted() } ?: false }

        private fun onPath(program: String): File? = System.getenv("PATH").orEmpty().split(File.pathSeparatorChar)
            .filter { it.isNotEmpty() }.map { File(it, program) }.firstOrNull { it.canExecute() }
    }
}
