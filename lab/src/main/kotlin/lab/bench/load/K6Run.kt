package lab.bench.load

import lab.support.Children
import lab.support.ListeningPorts
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * One k6 process driving one server with `loadtests/bench.js`, its Go runtime as [K6GoRuntime]
 * sets it. Its summary (with percentiles up to p99.9) goes to `k6-summary.json`, every sample to
 * `k6-metrics.csv.gz` ([K6Samples]), and, with [dashboard], its web dashboard's export to
 * [K6Dashboard.FILE]; while it runs, [live] reads k6's own REST API for the progress line, which
 * shows the live dashboard's address.
 */
class K6Run(
    private val k6: File,
    private val script: File,
    private val plan: K6Plan,
    private val dir: File,
    private val sourceAddresses: Int,
    private val dashboard: Boolean,
) : K6Load {
    override val summaryFile = File(dir, "k6-summary.json")
    private lateinit var process: Process

    /** k6's REST API, once k6 has bound the port it was given as 0. */
    @Volatile private var api: K6Api? = null

    @Volatile override var dashboardUrl: String? = null
        private set

    override fun start() {
        plan.writeIn(dir)
        val command = buildList {
            addAll(listOf(k6.path, "run", "--quiet", "--no-color", "--paused", "--address", "127.0.0.1:0"))
            addAll(K6Samples.arguments(K6Samples.writtenIn(dir).path))
            // Past one address's ephemeral ports, k6 spreads its sockets over several loopback sources.
            if (sourceAddresses > 1) addAll(listOf("--local-ips", "127.0.0.1-127.0.0.$sourceAddresses"))
            addAll(listOf("-e", "LAB_PLAN=${plan.toJson()}"))
            addAll(listOf("-e", "LAB_SUMMARY=${summaryFile.path}"))
            add(script.path)
        }
        val environment = K6GoRuntime.environment() +
            (if (dashboard) K6Dashboard.environment(K6Dashboard.exportIn(dir).path) else emptyMap())
        process = Children.start(command, File(dir, "k6.log"), environment = environment)
    }

    /**
     * Waits until k6 has initialised its VUs (about 6 s for a local run's 2,300: the harness starts k6 first and takes the
     * server's memory at rest meanwhile), resumes it, and waits until the timeline has started (its REST API says `running`):
     * the moment the profile's phases count from. False if k6 exited or [timeoutSeconds] passed first.
     */
    override fun awaitRunning(timeoutSeconds: Long): Boolean {
        val deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
        // The API's port, which answers its status, and the dashboard's, which does not: each bound to 0.
        val count = if (dashboard) 2 else 1
        val ports = ListeningPorts.await(process, count, TimeUnit.SECONDS.toMillis(timeoutSeconds)) ?: return false
        val candidates = ports.associateWith(K6Api::onPort)
        var found: Map.Entry<Int, K6Api>? = null
        while (found == null) {
            if (!process.isAlive || System.nanoTime() > deadlineNs) return false
            found = candidates.entries.firstOrNull { it.value.status() != null } ?: null.also { Thread.sleep(50) }
        }
        dashboardUrl = (ports - found.key).singleOrNull()?.let(K6Dashboard::url)
        val api = found.value.also { api = it }
        fun left() = maxOf(TimeUnit.NANOSECONDS.toSeconds(deadlineNs - System.nanoTime()), 1)
        if (!api.await(left(), { process.isAlive }) { it.phase == K6Api.PAUSED_BEFORE_RUN }) return false
        return api.resume() && api.await(left(), { process.isAlive }) { it.running }
    }

    /** Waits up to [ms] for k6 to finish; true once it has. */
    override fun awaitExit(ms: Long): Boolean = process.waitFor(ms, TimeUnit.MILLISECONDS)

    override fun exitCode(): Int? = if (process.isAlive) null else process.exitValue()

    override val localPid: Long? get() = if (::process.isInitialized) process.pid() else null

    override fun live(): K6Load.Live? = api?.live()

    /** Once k6 has ended: compresses the samples k6 wrote plain ([K6Samples.compress]). */
    override fun collect() = K6Samples.compress(dir)

    /** Stops k6 (SIGTERM lets it write its summary) and waits for it; what it wrote is kept, compressed. */
    override fun close() {
        if (!::process.isInitialized) return
        if (process.isAlive) Children.stop(process, graceSeconds = 10)
        collect()
    }
}
