package lab.bench.collect

import lab.support.ProcView
import lab.support.ProcView.ThreadCpu
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ThreadFamiliesTest {
    @Test
    fun `a family is the kernel's name without its trailing numbers or an object's hash`() {
        val families = mapOf(
            "DefaultDispatch" to "DefaultDispatch",
            "qtp1937348256-41" to "qtp",
            "ForkJoinPool-1-" to "ForkJoinPool",
            "HttpClient@6d2a" to "HttpClient",
            "GC Thread#0" to "GC Thread",
            "C2 CompilerThre" to "C2 CompilerThre",
            "ZWorkerYoung#1" to "ZWorkerYoung",
            "pool-1-thread-3" to "pool-1-thread",
            "1234" to "1234",
        )
        for ((name, family) in families) assertEquals(family, ThreadFamilies.of(name), name)
    }

    @Test
    fun `a family's CPU is its threads' use between the readings, a thread born between them counted whole`() {
        val before = listOf(ThreadCpu(1, "qtp99-1", 1_000), ThreadCpu(2, "qtp99-2", 500), ThreadCpu(3, "GC Thread#0", 40))
        val after = listOf(
            ThreadCpu(1, "qtp99-1", 1_700),
            ThreadCpu(2, "qtp99-2", 600),
            ThreadCpu(3, "GC Thread#0", 40),
            ThreadCpu(4, "qtp99-3", 250),
        )
        assertEquals(mapOf("qtp" to 1.05), ThreadFamilies.cpuSecondsBetween(before, after))
    }

    @Test
    fun `a thread id reused by a thread of another name is the new thread, and one that ended is in no family`() {
        val before = listOf(ThreadCpu(7, "Thread-0", 9_000), ThreadCpu(8, "DefaultDispatch", 300))
        val after = listOf(ThreadCpu(7, "DefaultDispatch", 120))
        assertEquals(mapOf("DefaultDispatch" to 0.12), ThreadFamilies.cpuSecondsBetween(before, after))
    }

    @Test
    fun `a collector's thread is named as ZGC, G1 and Parallel name theirs, and no other thread is`() {
        val collectors = listOf(
            "ZWorkerYoung#0", "ZWorkerOld#1", "ZDriverMajor", "ZDriverMinor", "ZDirector", "ZStat", "ZUncommitter#0", "ZWorker#0",
            "ZDriver", "RuntimeWorker#0", "GC Thread#0", "G1 Conc#0", "G1 Main Marker", "G1 Refine#0", "G1 Service",
        )
        val others = listOf(
            "VM Thread", "C2 CompilerThre", "qtp1937348256-41", "DefaultDispatch", "eventLoopGroupP", "ForkJoinPool-1-", "Zeta-1",
            "java", "Service Thread", "VM Periodic Tas",
        )
        for (name in collectors) assertTrue(ProcView.isGcThread(name), name)
        for (name in others) assertTrue(!ProcView.isGcThread(name), name)
        assertTrue(ProcView.isVmThread("VM Thread") && collectors.plus(others).count(ProcView::isVmThread) == 1)
    }

    @Test
    fun `this JVM's threads, read from proc, used no more CPU than the whole process read after them`() {
        val self = ProcView.self()
        val threads = self.threadsCpu()
        val processMs = self.cpuMs()!!
        assertTrue(threads.any { ProcView.isCompilerThread(it.name) }, "a JVM's compiler threads are among its threads: $threads")
        assertTrue(threads.any { ProcView.isGcThread(it.name) }, "and its collector's: $threads")
        assertEquals(1, threads.count { ProcView.isVmThread(it.name) }, "and its one VM thread: $threads")
        // The kernel scales each thread's ticks to its run time, and the process's sum apart: a tick (10 ms) may part them.
        val threadsMs = threads.sumOf { it.cpuMs }
        assertTrue(threadsMs <= processMs + 10, "$threadsMs ms of threads, $processMs ms of the process")
    }
}
