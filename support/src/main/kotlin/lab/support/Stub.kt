package lab.support

import java.io.File

/**
 * The downstream stub that `/dashboard` calls, as every lab program starts it: from its jar, on a
 * free loopback port, answering after [latencyMs]. It is no server of the catalogue: it is
 * not measured, only called.
 */
object Stub {
    const val JAR = "stub/target/stub.jar"

    private const val READY_TIMEOUT_S = 30L

    fun command(java: String, repo: File, latencyMs: Long): List<String> =
        listOf(java, "-jar", File(repo, JAR).path, "--port", "0", "--latency-ms", latencyMs.toString())

    /** Starts the stub with its log in [dir]'s `stub.log` and waits for its READY line; null if none came (the log says why). */
    fun start(java: String, repo: File, latencyMs: Long, dir: File): Started? {
        val log = File(dir, "stub.log")
        val process = Children.start(command(java, repo, latencyMs), log)
        return Children.awaitReadyOrNull(process, log, READY_TIMEOUT_S)?.let { Started(it, process) }
    }

    /** A running stub: where it answers, and its process for [Children.stop]. */
    class Started(val url: String, val process: Process)
}
