package lab.bench.host

import java.io.File
import java.io.IOException
import kotlin.math.roundToLong

/**
 * A CPU budget for the server: a cgroup v1 `cpu` group of its own whose CFS bandwidth quota, once
 * [impose]d, lets the server use at most [cores] CPU-seconds a second, however many threads want to
 * run. The curve imposes it for its steps ([lab.bench.load.Profile.curveServerCpuBudget]): on this
 * host the load has one CPU, which sends what a whole server CPU answers of `/json` only in part, so
 * without a budget the curve measured how much its load generator sends (docs/under-load.md). With
 * one, every server's limit lies where the load reaches it, and the curve compares the models per
 * CPU, as HttpArena and Quarkus's comparison give each server a CPU budget.
 *
 * The kernel hands out the quota every period; a server that spent its share waits for the next
 * one, so the longest wait a budget adds to a request is the period less the quota. The kernel takes
 * no quota and no period under 1 ms, so the budget's quota is 1 ms and its period as short as that
 * allows ([periodUs]): 4 ms for a quarter of a CPU, a wait of 3 ms at most, well under the curve's
 * p99 bounds. The kernel's default period of 100 ms would hold a busy server still for 75 ms at a time.
 *
 * [throttledNs] is the group's `cpu.stat` `throttled_time`: how long its threads were held back
 * for want of quota, the budget's own sign that the server ran out of it.
 */
class CpuBudget private constructor(val dir: File, val cores: Double) : AutoCloseable {
    /** The budget in effect now, in cores; null until [impose], while the server may use its CPUs whole. */
    @Volatile
    var inEffectCores: Double? = null
        private set

    /** [command] as it must start to run under the budget from its first instruction (CgroupV1.launchInto). */
    fun launch(command: List<String>): List<String> = CgroupV1.launchInto(dir, command)

    /** From now on the server gets [cores] of a CPU each period, at most. */
    fun impose() {
        File(dir, "cpu.cfs_quota_us").writeText(quotaUs(cores).toString())
        inEffectCores = cores
    }

    /**
     * From now on the server may use its CPUs whole again: once nothing more is measured, so that it shuts down at its full
     * speed. Held to 0.4 of a CPU, the platform server, with its 15,000 threads, took over a minute to exit (docs/JOURNAL.md).
     */
    fun lift() {
        File(dir, "cpu.cfs_quota_us").writeText("-1")
        inEffectCores = null
    }

    /** The nanoseconds the group has been held back for want of quota, since it was made; null once it cannot be read. */
    fun throttledNs(): Long? = runCatching {
        File(dir, "cpu.stat").readLines().first { it.startsWith("throttled_time ") }.substringAfter(' ').trim().toLong()
    }.getOrNull()

    /** Removes the group, once the server has left it. */
    override fun close() = CgroupV1.remove(dir)

    companion object {
        /** The kernel's shortest CFS quota and period (`min_cfs_quota_period`): it refuses either under 1 ms. */
        const val SHORTEST_US = 1_000L

        private val MOUNT = CgroupV1.mount("cpu")

        /** The period for a budget of [cores]: as short as a quota of at least [SHORTEST_US] allows, and [SHORTEST_US] at least. */
        fun periodUs(cores: Double): Long = maxOf(SHORTEST_US, (SHORTEST_US / cores).roundToLong())

        /** The quota that gives [cores] of a CPU each [periodUs]. */
        fun quotaUs(cores: Double): Long = (cores * periodUs(cores)).roundToLong()

        /**
         * A group for the server [name]d, its period set and no quota yet. Throws [PreflightRefusal] with the fix where the host
         * cannot have one; the harness calls [check] before any server starts.
         */
        fun create(name: String, cores: Double): CpuBudget {
            require(cores > 0) { "a budget is above 0 cores, not $cores" }
            val quotaFile = File(MOUNT, "cpu.cfs_quota_us")
            if (!quotaFile.isFile) throw PreflightRefusal(listOf(unavailable("no cgroup v1 cpu controller at ${MOUNT.path}")))
            val dir = CgroupV1.makeGroup("cpu", name)
                ?: throw PreflightRefusal(listOf(unavailable("cannot make a group under ${MOUNT.path} (making one needs root)")))
            File(dir, "cpu.cfs_period_us").writeText(periodUs(cores).toString())
            return CpuBudget(dir, cores)
        }

        /** Throws [PreflightRefusal] unless a budget of [cores] can be given here: a group made, its quota written, and removed. */
        fun check(cores: Double) {
            try {
                create("check", cores).use { it.impose() }
            } catch (e: IOException) {
                throw PreflightRefusal(listOf(unavailable("the kernel refused it: ${e.message}")))
            }
        }

        private fun unavailable(why: String) =
            "the profile gives the server a CPU budget (curveServerCpuBudget), which needs the cgroup v1 cpu controller as root: $why; " +
                "run as root on a host with cgroup v1, or set curveServerCpuBudget to 0"
    }
}
