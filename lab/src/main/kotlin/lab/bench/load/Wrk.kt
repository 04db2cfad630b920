package lab.bench.load

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import lab.support.Children
import lab.support.RunFolder
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * The closed-loop load generator, the concurrency sweep's and the curve's full step's ([ClosedLoopStep]): Debian's wrk, which
 * holds [connections] each with one request outstanding, sending the next as soon as an answer is in (a closed loop). It costs a
 * few µs of CPU a request where k6 costs hundreds and vegeta tens, so one load CPU can keep thousands of requests in flight, and
 * serve a budgeted server more than it can take. `loadtests/wrk/closed-loop.lua` makes it report as JSON ([WrkResult]).
 *
 * A measured run goes through bash, whose `times` then prints the CPU wrk used ([run]), or is followed by the CPU sampler
 * ([runFollowed]): the load generator's CPU is recorded like the server's, so a step whose load side ran out says so.
 */
class Wrk(private val binary: File, private val script: File) {
    /**
     * Runs one closed loop against [url] for [seconds] on [cpus] (none: any CPU), waiting for it
     * to end (it stops by itself; a wrk still running [GRACE_S] after its time is killed), and
     * returns what it counted. A request unanswered after [timeoutSeconds] counts as a timeout.
     * Throws [WrkFailed] when wrk printed no result; [log] then says why.
     */
    fun run(url: String, connections: Int, seconds: Int, timeoutSeconds: Int, window: Window, cpus: String?, log: File): WrkResult {
        // bash waits for wrk, then prints the CPU it used; stopped (Ctrl-C stops the harness's children), it stops wrk too.
        val wrapper = listOf("bash", "-c", WRAPPER, "wrk")
        val process = Children.start(wrapper + command(url, connections, seconds, timeoutSeconds, window, cpus), log)
        awaitEnd(process, seconds + timeoutSeconds + GRACE_S, log)
        val lines = log.readLines()
        return result(lines, process.exitValue(), log).copy(cpuSeconds = childrenCpuSeconds(lines))
    }

    /**
     * As [run], with wrk started on its own (no bash around it) and its pid handed to [onStart] as it starts, so that a sampler
     * follows its CPU second by second ([WrkResult.cpuSeconds] is then null). Interrupted, it stops wrk and throws.
     */
    fun runFollowed(
        url: String,
        connections: Int,
        seconds: Int,
        timeoutSeconds: Int,
        window: Window,
        log: File,
        onStart: (Long) -> Unit,
    ): WrkResult {
        val process = Children.start(command(url, connections, seconds, timeoutSeconds, window, cpus = null), log)
        onStart(process.pid())
        awaitEnd(process, seconds + timeoutSeconds + GRACE_S, log)
        return result(log.readLines(), process.exitValue(), log)
    }

    /** Waits up to [limitSeconds] for wrk to end; stops it and throws [WrkFailed] past that, and stops it when interrupted. */
    private fun awaitEnd(process: Process, limitSeconds: Long, log: File) {
        val ended = try {
            process.waitFor(limitSeconds, TimeUnit.SECONDS)
        } catch (e: InterruptedException) {
            Children.stop(process, graceSeconds = 2)
            throw e
        }
        if (!ended) {
            Children.stop(process, graceSeconds = 2)
            throw WrkFailed("wrk did not end within $limitSeconds s; see ${log.name}")
        }
    }

    private fun result(lines: List<String>, exitCode: Int, log: File): WrkResult {
        val json = lines.firstOrNull { it.startsWith(RESULT_MARKER) }?.removePrefix(RESULT_MARKER)
            ?: throw WrkFailed("wrk exited with code $exitCode and no result; see ${log.name}")
        return JSON.decodeFromString(WrkResult.serializer(), json)
    }

    /**
     * Starts a closed loop that holds [connections] requests in flight until the caller stops it
     * ([Children.stop]), or at most [seconds]: the load a memory snapshot is taken under, however
     * long the snapshot takes. Nothing it counts is kept.
     */
    fun hold(url: String, connections: Int, seconds: Int, timeoutSeconds: Int, window: Window, cpus: String?, log: File): Process =
        Children.start(command(url, connections, seconds, timeoutSeconds, window, cpus), log)

    private fun command(url: String, connections: Int, seconds: Int, timeoutSeconds: Int, window: Window, cpus: String?): List<String> =
        (cpus?.let { listOf("taskset", "-c", it) } ?: emptyList()) + listOf(
            binary.path, "--threads", "1", "--connections", "$connections", "--duration", "${seconds}s",
            "--timeout", "${timeoutSeconds}s", "--script", script.path, url,
            "--", "$connections", "${window.spreadMs}", "${window.fromMs}",
        )

    /**
     * Each connection's first request waits a random share of [spreadMs], so the connections' cycles
     * are out of step; the rate is counted over the answers from [fromMs] on (the script says why).
     */
    data class Window(val spreadMs: Long, val fromMs: Long)

    companion object {
        const val RESULT_MARKER = "LAB-WRK-RESULT "

        /** The script that makes wrk report as data, from the repository's root. */
        const val SCRIPT = "loadtests/wrk/closed-loop.lua"

        /** [binary]'s version line, as a manifest records it; "unknown" where it prints none. */
        fun version(binary: File): String =
            RunFolder.commandText(binary.path, "--version").lines().firstOrNull { it.startsWith("wrk") }?.trim() ?: "unknown"

        /** Runs its arguments (wrk), stops them when itself stopped, and then prints their CPU time with `times`. */
        private const val WRAPPER = "trap 'kill \$child 2>/dev/null' TERM INT; \"\$@\" & child=\$!; wait \$child; status=\$?; " +
            "kill -0 \$child 2>/dev/null && wait \$child; times; exit \$status"
        private const val GRACE_S = 30L
        private val JSON = Json { ignoreUnknownKeys = true }

        /** bash's `times`: its own user and system time, then its children's (`0m1.250s 0m0.310s`); the last line is wrk's. */
        fun childrenCpuSeconds(lines: List<String>): Double? {
            val clock = Regex("""^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$""")
            val match = lines.lastOrNull { clock.matches(it.trim()) }?.let { clock.find(it.trim()) } ?: return null
            val (userM, userS, sysM, sysS) = match.destructured
            return userM.toInt() * 60 + userS.toDouble() + sysM.toInt() * 60 + sysS.toDouble()
        }
    }
}

/** What one wrk run counted ([Wrk]); latencies in µs, as wrk keeps them. */
@Serializable
data class WrkResult(
    val durationUs: Long,
    val requests: Long,
    val bytes: Long,
    /** When the counted window began, in ms from wrk's start, and the answers that came in it. */
    val windowFromMs: Long,
    val answeredInWindow: Long,
    val errors: Errors,
    val latencyUs: Latency,
    /** Answers by HTTP status, as the script tallied them: every status, 2xx included. */
    val statuses: Map<String, Long>,
    /** wrk's own CPU (user and system), from bash's `times`; null if it printed none. */
    val cpuSeconds: Double? = null,
) {
    /** wrk's socket errors; [status] counts answers that were not 2xx or 3xx, which [statuses] splits. */
    @Serializable
    data class Errors(val connect: Long, val read: Long, val write: Long, val status: Long, val timeout: Long)

    @Serializable
    data class Latency(val min: Long, val mean: Double, val p50: Long, val p90: Long, val p99: Long, val p999: Long, val max: Long)
}

class WrkFailed(message: String) : IllegalStateException(message)
