package lab.floor.tasks

/**
 * What each parked task holds besides its model's own state, the same for every model.
 *
 * [depth] frames of a recursive call (0: the task parks directly), each with [LIVE_LOCALS_PER_FRAME]
 * longs that are read again after the park, so no compiler may drop them: this is where a virtual
 * thread (its frames copied to the heap when it parks) and a coroutine (only the locals live
 * across the suspension, in one continuation object a frame) are said to differ.
 *
 * [ballastBytes] is the measurement's own check (a known truth): every task then also holds a
 * live `byte[ballastBytes]` across the park, and drops another of the same size before it, so
 * the live-heap slope must rise by the array (plus its header) and by nothing of the garbage.
 */
data class TaskShape(val depth: Int, val ballastBytes: Int = 0) {
    init {
        require(depth in DEPTHS) { "depth must be in $DEPTHS, got $depth" }
        require(ballastBytes >= 0) { "ballast must be 0 or more bytes, got $ballastBytes" }
    }

    companion object {
        const val LIVE_LOCALS_PER_FRAME = 3
        val DEPTHS = 0..200
    }
}
