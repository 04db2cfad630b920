package lab.conformance

import lab.support.Children
import lab.support.JvmFlags
import lab.support.ProcView
import lab.support.ReadyLine
import java.io.File
import java.net.URI

/**
 * One of the lab's programs (a server or the stub) running as a real process on loopback,
 * started and stopped by [Children] like every process of the lab, so none outlives the tests.
 *
 * It is started from its runnable jar with the JDK running the tests, and is ready once it
 * prints its `READY` line, from which the port it bound is read. Closing it sends SIGTERM and
 * waits for a graceful exit.
 */
class LabProcess private constructor(
    val name: String,
    private val process: Process,
    val baseUrl: URI,
    /** The `READY` line it printed, with the facts it announces about itself. */
    val readyLine: String,
) : AutoCloseable {
    val pid: Long get() = process.pid()

    val isAlive: Boolean get() = process.isAlive

    private val proc = ProcView(process.pid())

    /** The kernel's count of this process's threads, from `/proc/<pid>/status`. */
    fun osThreadCount(): Int = proc.threads() ?: error("$name has exited")

    /** The names of this process's threads as the kernel has them (at most 15 characters each). */
    fun osThreadNames(): List<String> = proc.threadNames()

    /** Stops the process with SIGTERM, as a user's Ctrl-C would, and returns how long it took to exit, in ms. */
    fun stop(): Long = Children.stop(process, GRACEFUL_EXIT_SECONDS)

    override fun close() {
        if (process.isAlive) stop()
    }

    companion object {
        /** The tests' heap: room for a few hundred sockets; the bench's flags are the profile's. */
        private const val HEAP_MB = 512
        private const val READY_TIMEOUT_SECONDS = 60L
        private const val GRACEFUL_EXIT_SECONDS = 10L

        private val labRoot = File(System.getProperty("lab.root") ?: error("set -Dlab.root to the repository root"))
        private val logs = File(System.getProperty("lab.logs") ?: "target/server-logs").apply { mkdirs() }
        private val java = ProcessHandle.current().info().command().orElseThrow()

        /**
         * Starts [jarPath] (relative to the repository root) with [args] on a free port, and waits
         * until it is ready. [jvmOptions] go to its JVM (a JFR recording, say), after the suite's own.
         */
        fun start(name: String, jarPath: String, vararg args: String, jvmOptions: List<String> = emptyList()): LabProcess {
            val jar = File(labRoot, jarPath)
            check(jar.isFile) { "$jar is missing: build it with `make build`" }
            val log = File(logs, "$name-${System.nanoTime()}.log")
            val command = listOf(java) + JvmFlags.forCheck(HEAP_MB) + jvmOptions + listOf("-jar", jar.path, "--port", "0") + args
            val process = Children.start(command, log)
            val url = Children.awaitReadyOrNull(process, log, READY_TIMEOUT_SECONDS)
            if (url == null) {
                Children.stop(process, graceSeconds = 0)
                error("$name did not print its READY line within $READY_TIMEOUT_SECONDS s; its output is in $log")
            }
            return LabProcess(name, process, URI(url), ReadyLine.firstIn(log)!!)
        }
    }
}
