package lab.bench.collect

import lab.support.ProcView.ThreadCpu

/**
 * Where a server's CPU went in a window, by thread family: its threads grouped by their kernel name with the trailing numbers,
 * and an object's hash after `@`, left out. kotlinx.coroutines' `DefaultDispatcher-worker-3` and `-7` are one family
 * (`DefaultDispatch`, as the kernel truncates the name to 15 characters), Jetty's `qtp1937348256-41` is `qtp`, the virtual
 * threads' carriers `ForkJoinPool-1-worker-2` are `ForkJoinPool`, and Jetty's client `HttpClient@6d2a…` is `HttpClient`.
 * The JVM's own threads keep their names: `C2 CompilerThre`, `GC Thread`, `ZWorkerYoung`.
 *
 * A process's CPU time counts its threads that have ended, and a family only those alive at the window's end: the
 * difference, what threads that ended in the window used, is the analysis's to compute from the process's count.
 */
object ThreadFamilies {
    private val TRAILING_NUMBERS = Regex("[-#_ \\d]+$")

    /** The family of a thread's kernel name; a name that is all numbers is its own family. */
    fun of(name: String): String = name.substringBefore('@').replace(TRAILING_NUMBERS, "").ifEmpty { name }

    /**
     * The CPU seconds each family's threads used between [before] and [after], two readings of the same process
     * (ProcView.threadsCpu): a thread alive at both by the difference, one born in between by all it used. A thread whose id
     * was reused by a thread of another name is the new one. Families that used nothing are left out.
     */
    fun cpuSecondsBetween(before: List<ThreadCpu>, after: List<ThreadCpu>): Map<String, Double> {
        val earlier = before.associateBy { it.tid }
        return after
            .groupBy({ of(it.name) }) { thread ->
                val start = earlier[thread.tid]?.takeIf { it.name == thread.name }?.cpuMs ?: 0L
                (thread.cpuMs - start).coerceAtLeast(0L)
            }
            .mapValues { (_, ms) -> ms.sum() / 1000.0 }
            .filterValues { it > 0.0 }
    }
}
