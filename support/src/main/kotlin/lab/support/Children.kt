package lab.support

import java.io.File
import java.util.concurrent.TimeUnit

/**
 * Every process a lab program starts (the harness, the audit, the experiments, the tests), so
 * that none outlives it: when the JVM exits, by Ctrl-C or SIGTERM too, the shutdown hook stops
 * them all (SIGTERM, then SIGKILL after a grace period). A lab program is ready once it prints
 * its [ReadyLine] into its log.
 */
object Children {
    private val processes = mutableListOf<Process>()
    private val onExit = mutableListOf<() -> Unit>()

    init {
        Runtime.getRuntime().addShutdownHook(Thread(::stopAll, "stop-children"))
    }

    /**
     * Starts [command] in [directory] (null: this program's), with [environment] added to this program's, its output (stdout and
     * stderr) going to [log], and tracks it.
     */
    fun start(command: List<String>, log: File, directory: File? = null, environment: Map<String, String> = emptyMap()): Process {
        val builder = ProcessBuilder(command).directory(directory).redirectErrorStream(true).redirectOutput(log)
        builder.environment().putAll(environment)
        val process = builder.start()
        synchronized(processes) { processes += process }
        return process
    }

    /**
     * Waits for a lab program's [ReadyLine] in its [log] and returns the URL it announces;
     * null if none came within [timeoutSeconds]. Throws if the process exits first.
     */
    fun awaitReady(process: Process, log: File, timeoutSeconds: Long): String? {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
        while (System.nanoTime() < deadline) {
            ReadyLine.firstIn(log)?.let(ReadyLine::urlIn)?.let { return it }
            if (!process.isAlive) throw ChildExited("exited with code ${process.exitValue()} before it was ready; see ${log.name}")
            Thread.sleep(100)
        }
        return null
    }

    /** [awaitReady], with a child that exited first counted as not ready: for a caller with one message for both. */
    fun awaitReadyOrNull(process: Process, log: File, timeoutSeconds: Long): String? = try {
        awaitReady(process, log, timeoutSeconds)
    } catch (e: ChildExited) {
        null
    }

    /** SIGTERM, then SIGKILL if [process] has not exited within [graceSeconds]; returns how long it took to exit, in ms. */
    fun stop(process: Process, graceSeconds: Long): Long {
        val startNs = System.nanoTime()
        process.destroy()
        if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) process.destroyForcibly().waitFor()
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)
    }

    /** Runs [action] first when the harness is stopped, before the children are (e.g. mark the run incomplete). */
    fun beforeStop(action: () -> Unit) = synchronized(onExit) { onExit += action }

    private fun stopAll() {
        synchronized(onExit) { onExit.forEach { runCatching(it) } }
        val alive = synchronized(processes) { processes.filter { it.isAlive } }
        alive.forEach { it.destroy() }
        val deadlineNs = System.nanoTime() + 8_000_000_000L
        alive.forEach { process ->
            val leftMs = (deadlineNs - System.nanoTime()) / 1_000_000
            if (leftMs <= 0 || !process.waitFor(leftMs, TimeUnit.MILLISECONDS)) process.destroyForcibly()
        }
    }
}

/** A child process ended before it was ready. */
class ChildExited(message: String) : Exception(message)
