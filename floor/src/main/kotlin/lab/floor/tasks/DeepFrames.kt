package lab.floor.tasks

import kotlinx.coroutines.channels.Channel
import java.util.concurrent.LinkedBlockingQueue

/**
 * The call depth a task parks at: [depth] frames of one recursive function, each computing
 * [TaskShape.LIVE_LOCALS_PER_FRAME] longs before the call below it and adding them to its result
 * after, so they are live across the park in every frame. Depth 0 parks in the first frame, with
 * no locals. The blocking and the suspending version are the same code: only the park differs.
 * [arrived] counts the tasks that reached their park, so a step knows when all of them did.
 */
internal object DeepFrames {
    fun descend(depth: Int, seed: Long, queue: LinkedBlockingQueue<Long>, arrived: Arrivals): Long {
        if (depth == 0) {
            arrived.one()
            return queue.take()
        }
        val a = seed * 31 + depth
        val b = a xor (a ushr 7)
        val c = b * MIX
        val below = descend(depth - 1, c, queue, arrived)
        return below + a + b + c
    }

    suspend fun descend(depth: Int, seed: Long, channel: Channel<Long>, arrived: Arrivals): Long {
        if (depth == 0) {
            arrived.one()
            return channel.receive()
        }
        val a = seed * 31 + depth
        val b = a xor (a ushr 7)
        val c = b * MIX
        val below = descend(depth - 1, c, channel, arrived)
        return below + a + b + c
    }

    // Any odd constant spreads the bits; this one is the golden ratio's (Fibonacci hashing).
    private const val MIX = -7046029254386353131L
}
