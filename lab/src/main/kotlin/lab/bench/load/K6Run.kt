package lab.bench.load

import lab.support.Children
import java.io.File

/**
 * One k6 process driving one server with `loadtests/bench.js`. Its summary (with
 * percentiles up to p99.9) goes to `k6-summary.json` and every sample to `k6-metrics.csv.gz`;
 * while it runs, [live] reads k6's own REST API for the progress line.
 */
class K6Run(
    private val k6: File,
    private val script: File,
    private val plan: K6Plan,
    private val dir: File,
    private val apiPort: Int,
    private val sourceAddresses: Int,
) : K6Load {
    override val summaryFile = File(dir, "k6-summary.json")
    private lateinit var process: Process
    private val api = K6Api(apiPort)

    override fun start() {
        val command = buildList {
            addAll(listOf(k6.path, "run", "--quiet", "--no-color", "--address", "127.0.0.1:$apiPort"))
            addAll(listOf("--out", "csv=${File(dir, "k6-metrics.csv.gz").path}"))
            // Past one address's ephemeral ports, k6 spreads its sockets over several loopback sources.
            if (sourceAddresses > 1) addAll(listOf("--local-ips", "127.0.0.1-127.0.0.$sourceAddresses"))
            addAll(listOf("-e", "LAB_PLAN=${plan.toJson()}"))
            addAll(listOf("-e", "LAB_SUMMARY=${summaryFile.path}"))
            add(script.path)
        }
        process = Children.start(command, File(dir, "k6.log"))
    }

    /**
     * Waits until k6 has initialised its VUs and started the timeline (its REST API says
     * `running`): the moment the profile's phases count from. False if k6 exited or
     * [timeoutSeconds] passed first.
     */
    override fun awaitRunning(timeoutSeconds: Long): Boolean = api.await(timeoutSeconds, { process.isAlive }) { it.running }

    /** Waits up to [ms] for k6 to finish; true once it has. */
    override fun awaitExit(ms: Long): Boolean = process.waitFor(ms, java.util.concurrent.TimeUnit.MILLISECONDS)

    override fun exitCode(): Int? = if (process.isAlive) null else process.exitValue()

    override val localPid: Long? get() = if (::process.isInitialized) process.pid() else null

    override fun live(): K6Load.Live? = api.live()

    /** Stops k6 (SIGTERM lets it write its summary) and waits for it. */
    override fun close() {
        if (!::process.isInitialized) return
        if (process.isAlive) Children.stop(process, graceSeconds = 10)
    }
}
