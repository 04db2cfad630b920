package lab.floor.tasks

/**
 * The known truth the measurement is checked against (see [TaskShape.ballastBytes]): a task
 * calls [take] as it starts, keeps what it returns live across its park, and [take] leaves
 * behind one more array of the same size, which only the latest task's call keeps reachable.
 */
internal object Ballast {
    // Volatile, so the dropped array is really allocated and published, not removed as dead code.
    @Volatile
    private var dropped: ByteArray? = null

    /** A live array of [bytes] for the task to hold; null for none. */
    fun take(bytes: Int): ByteArray? {
        if (bytes == 0) return null
        dropped = ByteArray(bytes)
        return ByteArray(bytes)
    }
}
