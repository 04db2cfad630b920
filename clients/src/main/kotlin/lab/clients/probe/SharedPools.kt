package lab.clients.probe

/**
 * Thread pools that belong to the JVM, not to a client: the coroutine scheduler, the virtual-thread
 * scheduler's carriers and OkHttp's process-wide task runner. They start on a client's first use
 * and idle on after it closes (by design, up to a minute), so a thread of theirs still alive after
 * `close()` is listed apart and is not a leak of the client.
 */
object SharedPools {
    private val names = listOf(
        Regex("DefaultDispatcher-worker-\\d+"),
        Regex("kotlinx\\.coroutines\\.DefaultExecutor"),
        Regex("ForkJoinPool-\\d+-worker-\\d+"),
        Regex("OkHttp TaskRunner"),
        Regex("process reaper"),
    )

    fun owns(threadName: String) = names.any { it.matches(threadName) }
}
