package lab.bench.load

import lab.support.Children
import lab.support.Loopback
import java.io.File
import java.util.Base64

/**
 * The load on one server split over load generators: k6 has no coordinator, so each host
 * runs one execution segment of the same plan (`--execution-segment`, with the sequence of
 * all of them, so that together they make exactly the profile's iterations). All start
 * paused and are resumed together once every one has its VUs, so the timeline starts at
 * the same moment on every host. Each k6's REST API comes back through the SSH connection
 * that runs it, for the progress line and the start; the SSH connection is also its leash:
 * it runs in a terminal, so a connection that ends hangs k6 up with it.
 *
 * Afterwards each segment's raw samples and summary are fetched into `k6-segments/<i>/` and
 * merged by [K6Merge]: the percentiles in the server's `k6-summary.json` come from all the
 * samples, as k6 cannot merge percentiles.
 */
class K6Segments(
    private val generators: LoadGenerators,
    private val script: File,
    private val plan: K6Plan,
    private val dir: File,
    /** Unique to this server's pass, so that passes never share a remote folder. */
    private val runTag: String,
) : K6Load {
    override val summaryFile = File(dir, "k6-summary.json")
    private val segments = run {
        val ports = generateSequence { Loopback.freePort() }.distinct().take(generators.hosts.size * 2).toList()
        generators.hosts.mapIndexed { i, host -> Segment(i, host, localApiPort = ports[2 * i], remoteApiPort = ports[2 * i + 1]) }
    }
    private var collected = false

    private inner class Segment(val index: Int, val host: SshHost, localApiPort: Int, val remoteApiPort: Int) {
        val localDir = File(dir, "k6-segments/$index")
        val remoteDir = "${generators.workDir}/$runTag/$index"
        val api = K6Api(localApiPort)
        val forward = "127.0.0.1:$localApiPort:127.0.0.1:$remoteApiPort"
        var started: Process? = null
        val process: Process get() = started ?: error("segment $index was not started")
        val name: String get() = "load generator $host (segment ${generators.segment(index)})"
    }

    override fun start() {
        val planText = Base64.getEncoder().encodeToString(plan.toJson().toByteArray())
        for (s in segments) {
            s.localDir.mkdirs()
            val remote = LoadGenerators.shellQuote(s.remoteDir)
            generators.run(s.host, "mkdir -p $remote && cat > $remote/bench.js", input = script)
            // Paths stay relative to the login's home, as the workDir and k6 path are given.
            val command = listOf(
                // k6 needs a descriptor per socket; the hard limit is what tune-host.sh raised.
                "ulimit -n \"$(ulimit -Hn)\" &&",
                "exec ${LoadGenerators.shellQuote(generators.k6)} run --quiet --no-color --paused --address 127.0.0.1:${s.remoteApiPort}",
                "--execution-segment ${generators.segment(s.index)} --execution-segment-sequence ${generators.segmentSequence}",
                "--out csv=$remote/k6-metrics.csv.gz -e LAB_SUMMARY=$remote/k6-summary.json",
                "-e LAB_PLAN=\"$(echo $planText | base64 -d)\" $remote/bench.js",
            ).joinToString(" ")
            val ssh = generators.ssh(s.host, command, extra = listOf("-tt", "-o", "ExitOnForwardFailure=yes", "-L", s.forward))
            s.started = Children.start(ssh, File(s.localDir, "k6.log"))
        }
    }

    /** Every segment initialised and paused, then all resumed at once, then all running. */
    override fun awaitRunning(timeoutSeconds: Long): Boolean {
        val deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(timeoutSeconds)
        fun left() = ((deadline - System.nanoTime()) / 1_000_000_000).coerceAtLeast(1)
        for (s in segments) {
            if (!s.api.await(left(), { s.process.isAlive }) { it.phase == PAUSED_BEFORE_RUN }) return false
        }
        if (!segments.all { it.api.resume() }) return false
        return segments.all { s -> s.api.await(left(), { s.process.isAlive }) { it.running } }
    }

    /** Throws [LoadGeneratorLost] as soon as one segment ends badly while others still run: the load is no longer the profile's. */
    override fun awaitExit(ms: Long): Boolean {
        val deadline = System.nanoTime() + ms * 1_000_000
        for (s in segments) {
            val left = (deadline - System.nanoTime()) / 1_000_000
            if (!s.process.waitFor(left.coerceAtLeast(0), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                lost()?.let { throw LoadGeneratorLost(it) }
                return false
            }
        }
        lost()?.let { throw LoadGeneratorLost(it) }
        return true
    }

    private fun lost(): String? = segments.firstOrNull { !it.process.isAlive && it.process.exitValue() !in OK_EXITS }?.let {
        val code = it.process.exitValue()
        val why = if (code ==
            SSH_LOST
        ) {
            "the SSH session ended without k6's exit code (the host, the connection or k6 was killed)"
        } else {
            "k6 exited with code $code"
        }
        "${it.name}: $why; see ${it.localDir.relativeTo(dir.parentFile)}/k6.log"
    }

    override fun exitCode(): Int? {
        if (segments.any { it.process.isAlive }) return null
        val codes = segments.map { it.process.exitValue() }
        return codes.firstOrNull { it !in OK_EXITS } ?: codes.max()
    }

    /** The segments' counts added up; p95 is the highest segment's, for the progress line only. */
    override fun live(): K6Load.Live? {
        val each = segments.mapNotNull { it.api.live() }
        if (each.isEmpty()) return null
        return K6Load.Live(
            requests = each.sumOf { it.requests },
            p95Ms = each.mapNotNull { it.p95Ms }.maxOrNull(),
            socketsOpened = each.sumOf { it.socketsOpened },
        )
    }

    override fun collect() {
        for (s in segments) {
            for (name in listOf("k6-metrics.csv.gz", "k6-summary.json")) {
                generators.fetch(s.host, "${s.remoteDir}/$name", File(s.localDir, name))
            }
        }
        K6Merge.merge(segments.map { it.localDir }, dir)
        collected = true
    }

    /** Stops every segment still running, keeps what they measured, and leaves nothing on the load generators. */
    override fun close() {
        for (s in segments) s.started?.takeIf { it.isAlive }?.let { Children.stop(it, graceSeconds = 10) }
        if (!collected) runCatching { collect() }
        for (s in segments) runCatching { generators.run(s.host, "rm -rf ${LoadGenerators.shellQuote("${generators.workDir}/$runTag")}") }
    }

    private companion object {
        /** k6's execution status while `--paused` holds it after initialising its VUs. */
        const val PAUSED_BEFORE_RUN = 4

        /** 99: k6's "a threshold failed", which the lab's always-passing thresholds never do; 0: done. */
        val OK_EXITS = setOf(0, 99)

        /** What ssh exits with when it got no exit code: the connection failed, or the remote command died of a signal. */
        const val SSH_LOST = 255
    }
}
