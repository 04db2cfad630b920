package lab.floor.tasks

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import java.util.concurrent.atomic.AtomicLong

/**
 * Coroutines, children of one scope on [dispatcher], each suspended in `receive` on a rendezvous [Channel] of its own. Each is
 * launched [CoroutineStart.UNDISPATCHED]: it runs on the caller's thread up to its first suspension, so `launch` returns only
 * once it is suspended in `receive`, and no thread is involved while it waits. The dispatcher runs each one once it is released:
 * Dispatchers.Default, or virtual threads, where a coroutine parked on them holds no more than one parked on Default.
 */
internal class ParkedCoroutines(private val shape: TaskShape, dispatcher: CoroutineDispatcher) : ParkedTasks {
    private val parent = SupervisorJob()
    private val scope = CoroutineScope(dispatcher + parent)
    private val channels = mutableListOf<Channel<Long>>()
    private val arrived = Arrivals()
    private val results = AtomicLong()

    override val parked: Int get() = channels.size

    override fun parkUntil(total: Int, timeoutMs: Long) {
        while (channels.size < total) {
            val channel = Channel<Long>()
            val seed = channels.size.toLong()
            channels += channel
            scope.launch(start = CoroutineStart.UNDISPATCHED) {
                val ballast = Ballast.take(shape.ballastBytes)
                val result = DeepFrames.descend(shape.depth, seed, channel, arrived)
                results.addAndGet(result + (ballast?.size ?: 0))
            }
        }
        // Undispatched launches leave nothing pending: a coroutine not suspended by now never will be.
        if (arrived.total != total) throw TasksDidNotPark("${total - arrived.total} of $total coroutines did not suspend in receive")
    }

    override fun release(): Long {
        channels.forEachIndexed { i, channel -> check(channel.trySend(i.toLong()).isSuccess) { "coroutine $i was not waiting in receive" } }
        runBlocking {
            parent.complete()
            parent.join()
        }
        return results.get()
    }
}
