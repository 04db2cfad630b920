package lab.floor.tasks

import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.atomic.AtomicLong

/**
 * Virtual or platform threads (as [builder] makes them, with its default names), each blocked
 * in `take` on a [LinkedBlockingQueue] of its own. A thread counts as parked once it reached
 * `take` and reports [Thread.State.WAITING]: for a virtual thread that is after its frames were
 * copied to the heap (a parking one still reports RUNNABLE), for a platform thread after it
 * blocked in the kernel.
 */
internal class ParkedThreads(private val builder: Thread.Builder, private val shape: TaskShape) : ParkedTasks {
    private val threads = mutableListOf<Thread>()
    private val queues = mutableListOf<LinkedBlockingQueue<Long>>()
    private val arrived = Arrivals()
    private val results = AtomicLong()

    override val parked: Int get() = threads.size

    override fun parkUntil(total: Int, timeoutMs: Long) {
        val first = threads.size
        while (threads.size < total) {
            val queue = LinkedBlockingQueue<Long>()
            val seed = threads.size.toLong()
            queues += queue
            threads += builder.start {
                val ballast = Ballast.take(shape.ballastBytes)
                val result = DeepFrames.descend(shape.depth, seed, queue, arrived)
                results.addAndGet(result + (ballast?.size ?: 0))
            }
        }
        val deadline = System.nanoTime() + timeoutMs * 1_000_000
        var waiting = first
        while (true) {
            while (waiting < total && threads[waiting].state == Thread.State.WAITING) waiting++
            if (waiting == total && arrived.total == total) return
            if (System.nanoTime() > deadline) {
                throw TasksDidNotPark("${total - waiting} of $total threads were not parked after $timeoutMs ms")
            }
            Thread.sleep(POLL_MS)
        }
    }

    override fun release(): Long {
        queues.forEachIndexed { i, queue -> queue.put(i.toLong()) }
        threads.forEach { it.join() }
        return results.get()
    }

    private companion object {
        const val POLL_MS = 5L
    }
}
