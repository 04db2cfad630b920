package lab.io

import java.util.concurrent.Callable

/**
 * Runs a blocking task on a new virtual thread and waits for it: how a virtual-thread server runs the same
 * blocking code a platform thread would.
 *
 * The benchmark thread joins, so the measured time is the task's own plus one virtual thread's start and
 * unpark (microseconds, against milliseconds of I/O). File reads cannot unmount a virtual thread: the JDK
 * compensates by letting the scheduler add a carrier while the read blocks. Socket I/O does unmount, and
 * parks on the JDK's poller until the socket is ready again.
 */
object VirtualThreadCall {
    /** Runs [task] on a new virtual thread, waits for it, and returns its result or rethrows its failure. */
    @JvmStatic
    fun <T> join(task: Callable<T>): T {
        var outcome: Result<T>? = null
        val thread = Thread.ofVirtual().name("io-bench-virtual").start { outcome = runCatching { task.call() } }
        thread.join()
        // join() orders the virtual thread's write of outcome before this read.
        return checkNotNull(outcome) { "the virtual thread ended without a result" }.getOrThrow()
    }
}
