package lab.bench.load

import lab.support.Children
import lab.support.ListeningPorts
import java.io.File
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions
import java.util.Base64

/**
 * The load on one server split over load generators: k6 has no coordinator, so each host
 * runs one execution segment of the same plan (`--execution-segment`, with the sequence of
 * all of them, so that together they make exactly the profile's iterations). All start
 * paused and are resumed together once every one has its VUs, so the timeline starts at
 * the same moment on every host. The SSH connection that runs each k6 is its leash: it runs
 * in a terminal, so a connection that ends hangs k6 up with it.
 *
 * Each k6's REST API, for the progress line and the start, binds port 0 on its host's loopback, as
 * does its dashboard; the ports they took are read from that host's /proc
 * ([ListeningPorts.remoteCommand]), and a second SSH connection forwards the API's, the one that
 * answers k6's status, to a socket file here. No port is picked free on either host and bound
 * later, where another process could have taken it first.
 *
 * Afterwards each segment's raw samples, summary and dashboard export are fetched into `k6-segments/<i>/` and
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
    private val segments = generators.hosts.mapIndexed { i, host -> Segment(i, host) }
    private var collected = false

    /** Where the APIs' socket files are, once one is forwarded: short, as a socket's path must be, and the user's alone. */
    private var apiSockets: File? = null

    private fun apiSocket(index: Int): Path {
        val folder = apiSockets ?: newSocketFolder().also { apiSockets = it }
        return folder.toPath().resolve("$index.sock")
    }

    private fun newSocketFolder(): File {
        val owned = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))
        val folder = Files.createTempDirectory("lab-k6-api-", owned).toFile()
        // Ctrl-C stops the forwards without this load's close.
        Children.beforeStop { folder.deleteRecursively() }
        return folder
    }

    private inner class Segment(val index: Int, val host: SshHost) {
        val localDir = File(dir, "k6-segments/$index")
        val remoteDir = "${generators.workDir}/$runTag/$index"
        val pidFile = "$remoteDir/k6.pid"
        var started: Process? = null
        val process: Process get() = started ?: error("segment $index was not started")
        var forward: Process? = null

        /** k6's API, once it is forwarded here. */
        var api: K6Api? = null
        val name: String get() = "load generator $host (segment ${generators.segment(index)})"

        /**
         * Its SSH session ended without k6's exit code: the host went away, or its link, or k6 died of a signal. Nothing more
         * is asked of it, each ask would wait out SSH's connect timeout, and `infra/bench-vps.sh` removes its folder if it can.
         */
        val lost: Boolean get() = started?.let { !it.isAlive && it.exitValue() == SSH_LOST } == true
    }

    override fun start() {
        val planText = Base64.getEncoder().encodeToString(plan.toJson().toByteArray())
        for (s in segments) {
            s.localDir.mkdirs()
            plan.writeIn(s.localDir)
            val remote = LoadGenerators.shellQuote(s.remoteDir)
            generators.run(s.host, "mkdir -p $remote && cat > $remote/bench.js", input = script)
            // Paths stay relative to the login's home, as the workDir and k6 path are given.
            val command = listOf(
                // exec keeps the shell's pid: it is k6's, whose /proc tells its API's port.
                "echo $$ > ${LoadGenerators.shellQuote(s.pidFile)} &&",
                // k6 needs a descriptor per socket; the hard limit is what tune-host.sh raised.
                "ulimit -n \"$(ulimit -Hn)\" &&",
                K6Dashboard.environment("$remote/${K6Dashboard.FILE}").entries.joinToString(" ") { (k, v) -> "$k=$v" },
                K6GoRuntime.shellAssignments,
                "exec ${LoadGenerators.shellQuote(generators.k6)} run --quiet --no-color --paused --address 127.0.0.1:0",
                "--execution-segment ${generators.segment(s.index)} --execution-segment-sequence ${generators.segmentSequence}",
                K6Samples.arguments("$remote/${K6Samples.FILE}").joinToString(" "),
                "-e LAB_SUMMARY=$remote/k6-summary.json",
                "-e LAB_PLAN=\"$(echo $planText | base64 -d)\" $remote/bench.js",
            ).joinToString(" ")
            val ssh = generators.ssh(s.host, command, extra = listOf("-tt"))
            s.started = Children.start(ssh, File(s.localDir, "k6.log"))
        }
    }

    /** Every segment initialised and paused, then all resumed at once, then all running. */
    override fun awaitRunning(timeoutSeconds: Long): Boolean {
        val deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(timeoutSeconds)
        fun left() = ((deadline - System.nanoTime()) / 1_000_000_000).coerceAtLeast(1)
        for (s in segments) {
            val api = forwardApi(s, deadline) ?: return false
            if (!api.await(left(), { s.process.isAlive }) { it.phase == K6Api.PAUSED_BEFORE_RUN }) return false
        }
        if (!segments.all { it.api?.resume() == true }) return false
        return segments.all { s -> s.api?.await(left(), { s.process.isAlive }) { it.running } == true }
    }

    /**
     * Finds the port [s]'s k6 took for its API and forwards it here; null if k6 or the forward ends, or [deadline] passes, first.
     * k6 binds two ports to 0 there, its API's and its dashboard's ([K6Dashboard]): the API is the one that answers its status.
     */
    private fun forwardApi(s: Segment, deadline: Long): K6Api? {
        var ports = emptySet<Int>()
        while (ports.size != 2) {
            if (!s.process.isAlive || System.nanoTime() > deadline) return null
            val leftSeconds = ((deadline - System.nanoTime()) / 1_000_000_000).coerceAtLeast(1)
            val tables = generators.run(
                s.host,
                ListeningPorts.remoteCommand(LoadGenerators.shellQuote(s.pidFile)),
                timeoutSeconds = leftSeconds,
            )
            ports = ListeningPorts.fromRemote(tables)
            if (ports.size != 2) Thread.sleep(API_POLL_MS)
        }
        while (true) {
            for (port in ports) {
                val api = forward(s, port, deadline) ?: return null
                if (api.status() != null) return api.also { s.api = it }
                unforward(s)
            }
            Thread.sleep(API_POLL_MS)
        }
    }

    /** Forwards [port] of [s]'s host to its socket file here; null if k6 or the forward ends, or [deadline] passes, first. */
    private fun forward(s: Segment, port: Int, deadline: Long): K6Api? {
        val socket = apiSocket(s.index)
        val forward = Children.start(generators.forward(s.host, socket.toString(), port), File(s.localDir, "api-forward.log"))
        s.forward = forward
        while (!Files.exists(socket)) {
            if (!forward.isAlive || !s.process.isAlive || System.nanoTime() > deadline) return null
            Thread.sleep(API_POLL_MS)
        }
        return K6Api.onUnixSocket(socket)
    }

    /** Ends [s]'s forward and removes its socket file, for the next forward to bind. */
    private fun unforward(s: Segment) {
        s.forward?.let { Children.stop(it, graceSeconds = 2) }
        s.forward = null
        Files.deleteIfExists(apiSocket(s.index))
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
        val each = segments.mapNotNull { it.api?.live() }
        if (each.isEmpty()) return null
        return K6Load.Live(
            requests = each.sumOf { it.requests },
            p95Ms = each.mapNotNull { it.p95Ms }.maxOrNull(),
            socketsOpened = each.sumOf { it.socketsOpened },
        )
    }

    override fun collect() {
        for (s in segments) fetch(s)
        K6Merge.merge(segments.map { it.localDir }, dir)
        collected = true
    }

    /** [s]'s raw samples, summary and dashboard export, into its folder here. */
    private fun fetch(s: Segment) {
        for (name in listOf(K6Samples.FILE, "k6-summary.json")) {
            generators.fetch(s.host, "${s.remoteDir}/$name", File(s.localDir, name))
        }
        // k6's view for a person, no figure is computed from it: one that k6 did not write (it was stopped) loses nothing.
        val dashboard = K6Dashboard.exportIn(s.localDir)
        runCatching { generators.fetch(s.host, "${s.remoteDir}/${K6Dashboard.FILE}", dashboard) }.onFailure { dashboard.delete() }
    }

    /**
     * Stops every segment still running, keeps what they measured, and leaves nothing on the load generators. A lost
     * segment's host is not asked again: the others' samples are kept unmerged, as no merge of a part is the profile's load.
     */
    override fun close() {
        // Before the stop: ssh stopped by a signal exits 255 too, and a segment stopped here is not lost.
        val reachable = segments.filterNot { it.lost }
        for (s in segments) s.started?.takeIf { it.isAlive }?.let { Children.stop(it, graceSeconds = 10) }
        for (s in segments) s.forward?.takeIf { it.isAlive }?.let { Children.stop(it, graceSeconds = 2) }
        apiSockets?.deleteRecursively()
        if (!collected) {
            if (reachable.size == segments.size) runCatching { collect() } else reachable.forEach { runCatching { fetch(it) } }
        }
        for (s in reachable) runCatching { generators.run(s.host, "rm -rf ${LoadGenerators.shellQuote("${generators.workDir}/$runTag")}") }
    }

    private companion object {
        const val API_POLL_MS = 200L

        /** 99: k6's "a threshold failed", which the lab's always-passing thresholds never do; 0: done. */
        val OK_EXITS = setOf(0, 99)

        /** What ssh exits with when it got no exit code: the connection failed, or the remote command died of a signal. */
        const val SSH_LOST = 255
    }
}
