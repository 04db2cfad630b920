package lab.bench

/**
 * Every process the harness starts, so that none outlives it: on Ctrl-C or SIGTERM the
 * shutdown hook stops them all (SIGTERM, then SIGKILL after a grace period).
 */
object Children {
    private val processes = mutableListOf<Process>()
    private val onExit = mutableListOf<() -> Unit>()

    init {
        Runtime.getRuntime().addShutdownHook(Thread(::stopAll, "stop-children"))
    }

    fun track(process: Process) = synchronized(processes) { processes += process }

    /** Runs [action] first when the harness is stopped, before the children are (e.g. mark the run incomplete). */
    fun beforeStop(action: () -> Unit) = synchronized(onExit) { onExit += action }

    private fun stopAll() {
        synchronized(onExit) { onExit.forEach { runCatching(it) } }
        val alive = synchronized(processes) { processes.filter { it.isAlive } }
        alive.forEach { it.destroy() }
        val deadlineNs = System.nanoTime() + 8_000_000_000L
        alive.forEach { process ->
            val leftMs = (deadlineNs - System.nanoTime()) / 1_000_000
            if (leftMs <= 0 || !process.waitFor(leftMs, java.util.concurrent.TimeUnit.MILLISECONDS)) process.destroyForcibly()
        }
    }
}
