package lab.bench.collect

import java.io.File

/**
 * One reading of /proc/stat's CPU lines: the host's CPU time since boot, for all CPUs together
 * (`cpu`) and for each one (`cpuN`), in clock ticks. Two readings give an interval's shares:
 * how much the hypervisor stole ([stealShare]) and how busy a set of CPUs was ([busyShare]),
 * which no per-process figure shows.
 */
class ProcStat(val all: Ticks, val byCpu: Map<Int, Ticks>) {
    /**
     * One CPU line's columns, as the kernel counts them (proc(5)). Guest time is already
     * inside user and nice, so it is not added again.
     */
    data class Ticks(
        val user: Long,
        val nice: Long,
        val system: Long,
        val idle: Long,
        val iowait: Long,
        val irq: Long,
        val softirq: Long,
        val steal: Long,
    ) {
        val total: Long get() = user + nice + system + idle + iowait + irq + softirq + steal

        /** Everything but idle and iowait (iowait is idle time with I/O outstanding): stolen time counts, as the CPU was not free for us. */
        val busy: Long get() = total - idle - iowait

        operator fun minus(earlier: Ticks) = Ticks(
            user - earlier.user,
            nice - earlier.nice,
            system - earlier.system,
            idle - earlier.idle,
            iowait - earlier.iowait,
            irq - earlier.irq,
            softirq - earlier.softirq,
            steal - earlier.steal,
        )
    }

    /** The share (0..1) of all CPU time since [earlier] that the hypervisor stole; null if no time passed. */
    fun stealShare(earlier: ProcStat): Double? = share(listOf(all - earlier.all)) { it.steal }

    /**
     * The share (0..1) of [cpus]' time since [earlier] that was busy; null if none of them is in
     * both readings (a CPU taken offline in between drops out).
     */
    fun busyShare(earlier: ProcStat, cpus: Collection<Int>): Double? = share(deltas(earlier, cpus)) { it.busy }

    /**
     * The share (0..1) of [cpus]' time since [earlier] that the hypervisor stole: a part of
     * [busyShare], and no process's. Null as for [busyShare].
     */
    fun stealShare(earlier: ProcStat, cpus: Collection<Int>): Double? = share(deltas(earlier, cpus)) { it.steal }

    private fun deltas(earlier: ProcStat, cpus: Collection<Int>): List<Ticks> =
        cpus.mapNotNull { cpu -> byCpu[cpu]?.let { now -> earlier.byCpu[cpu]?.let { now - it } } }

    /**
     * Some kernels let a CPU's idle or iowait count step back a little (NO_HZ accounting), so a
     * part is clamped to the interval's total, and the total to zero.
     */
    private fun share(deltas: List<Ticks>, part: (Ticks) -> Long): Double? {
        val total = deltas.sumOf { it.total.coerceAtLeast(0) }
        if (total == 0L) return null
        return deltas.sumOf { part(it).coerceIn(0, it.total.coerceAtLeast(0)) }.toDouble() / total
    }

    companion object {
        fun read(): ProcStat = parse(File("/proc/stat").readText())

        /** Reads the `cpu` and `cpuN` lines of /proc/stat's text; columns a kernel does not have (steal before 2.6.11) are 0. */
        fun parse(text: String): ProcStat {
            var all: Ticks? = null
            val byCpu = sortedMapOf<Int, Ticks>()
            for (line in text.lineSequence().filter { it.startsWith("cpu") }) {
                val fields = line.trim().split(Regex("\\s+"))
                val columns = fields.drop(1).map { it.toLong() } + List(8) { 0L }
                val ticks = Ticks(columns[0], columns[1], columns[2], columns[3], columns[4], columns[5], columns[6], columns[7])
                if (fields[0] == "cpu") all = ticks else byCpu[fields[0].removePrefix("cpu").toInt()] = ticks
            }
            return ProcStat(all ?: throw IllegalArgumentException("no aggregate `cpu` line in /proc/stat"), byCpu)
        }
    }
}
