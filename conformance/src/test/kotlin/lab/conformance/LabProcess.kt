package lab.conformance

import lab.handlers.ReadyLine
import java.io.File
import java.io.IOException
import java.net.URI
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread

/**
 * One of the lab's programs (a server or the stub) running as a real process on loopback.
 *
 * It is started from its runnable jar with the JDK running the tests, and is ready once it
 * prints its `READY` line, from which the port it bound is read. Closing it sends SIGTERM and
 * waits for a graceful exit; a JVM shutdown hook makes sure no process outlives the tests.
 */
class LabProcess private constructor(val name: String, private val process: Process, val baseUrl: URI) : AutoCloseable {
    val pid: Long get() = process.pid()

    val isAlive: Boolean get() = process.isAlive

    /** The kernel's count of this process's threads, from `/proc/<pid>/status`. */
    fun osThreadCount(): Int = File("/proc/$pid/status").readLines()
        .first { it.startsWith("Threads:") }
        .substringAfter(':').trim().toInt()

    /** The names of this process's threads as the kernel has them (at most 15 characters each). */
    fun osThreadNames(): List<String> = File("/proc/$pid/task").listFiles().orEmpty()
        .mapNotNull { task -> runCatching { File(task, "comm").readText().trim() }.getOrNull() }

    /** Stops the process with SIGTERM, as a user's Ctrl-C would, and returns how long it took to exit. */
    fun stop(): Long {
        val startNs = System.nanoTime()
        process.destroy()
        if (!process.waitFor(GRACEFUL_EXIT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor()
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)
    }

    override fun close() {
        if (process.isAlive) stop()
    }

    companion object {
        /** The downstream stub, which is no server of the catalogue. */
        const val STUB_JAR = "stub/target/stub.jar"

        private const val READY_TIMEOUT_SECONDS = 60L
        private const val GRACEFUL_EXIT_SECONDS = 10L
        private val running = mutableSetOf<Process>()

        init {
            Runtime.getRuntime().addShutdownHook(Thread { synchronized(running) { running.forEach { it.destroyForcibly() } } })
        }

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
            val command =
                listOf(java, "-Xmx512m", "--enable-native-access=ALL-UNNAMED") + jvmOptions + listOf("-jar", jar.path, "--port", "0") + args
            val process = ProcessBuilder(command).redirectErrorStream(true).start()
            synchronized(running) { running += process }

            val readyLines = LinkedBlockingQueue<String>()
            thread(isDaemon = true, name = "$name-output") {
                log.bufferedWriter().use { out ->
                    try {
                        process.inputStream.bufferedReader().forEachLine { line ->
                            out.appendLine(line)
                            out.flush()
                            ReadyLine.urlIn(line)?.let(readyLines::put)
                        }
                    } catch (e: IOException) {
                        // The process was stopped while it was still writing: its log ends here.
                    }
                }
            }
            val url = readyLines.poll(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            if (url == null) {
                process.destroyForcibly()
                error("$name did not print its READY line within $READY_TIMEOUT_SECONDS s; its output is in $log")
            }
            return LabProcess(name, process, URI(url))
        }
    }
}
