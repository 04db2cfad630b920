package lab.bench

import kotlinx.serialization.Serializable
import kotlinx.serialization.Transient
import lab.bench.collect.WallClockStep

/**
 * How one server's run ended, and its headline figures. A server that died is data too:
 * [status] says so, [reason] says why, and the figures hold what was measured until then.
 */
@Serializable
data class ServerOutcome(
    val server: String,
    /** This pass's folder in the run folder (`jetty-virtual`, `jetty-virtual-r2`, ...), so that no reader rebuilds its name. */
    val folder: String? = null,
    /** Whether JFR was streamed from this server; false only in a profile's comparison run. */
    val jfrStreaming: Boolean = true,
    /** Which repeat of this server (and JFR setting) it was, from 1. */
    val repeat: Int = 1,
    val status: String,
    val reason: String? = null,
    val phaseAtEnd: String? = null,
    val seconds: Double,
    val peakOpenSockets: Int? = null,
    val peakRssBytes: Long? = null,
    val peakThreads: Int? = null,
    /** k6's count of /json responses in the steady phase. */
    val jsonRequests: Long? = null,
    /** When k6's timeline started, by this host's clock: k6 stamps its samples in epoch seconds. */
    val loadStartEpochMs: Long? = null,
    /**
     * When the harness started k6, by the same clock: k6's Go runtime times each collection it writes to
     * k6.log (K6GoRuntime) from its own start, a few milliseconds later.
     */
    val k6StartEpochMs: Long? = null,
    /**
     * The first whole second of the steady /json phase, by the same clock: k6's samples from it on
     * are the steady phase's (the warm-up ramp is the same k6 scenario, and its last second is partly ramp).
     */
    val jsonSteadyFromEpochSecond: Long? = null,
    /** The same for /dashboard, whose warm-up ramp is likewise part of its scenario. */
    val dashboardSteadyFromEpochSecond: Long? = null,
    /**
     * The harness's own readings of /json, for its summary line and for calibration's decision
     * during the run. They are not written: the report computes every figure from k6's samples
     * (labanalysis.bench.latency), with the one definition of each.
     */
    @Transient val jsonP99Ms: Double? = null,
    @Transient val jsonPerSecond: Double? = null,
    @Transient val jsonDroppedIterations: Long? = null,
    val failedChecks: Long? = null,
    /** The /dashboard requests that got no 200 (k6's `http_req_failed` over the dashboard scenario: its warm-up and curve steps too). */
    val dashboardFailures: Long? = null,
    /** The idle sockets k6 opened, of those the profile (after the preflight) asked for: cold, and warm where it opens them warm too. */
    val socketsOpened: Long? = null,
    val socketsPlanned: Int? = null,
    /**
     * What makes this pass's figures not the profile's, though the server ran to the end: k6
     * checks that failed, sockets that never opened. One sentence each; the report shows them.
     */
    val marks: List<String> = emptyList(),
    val pinnedEvents: Long? = null,
    /** Where memory.csv's kernel memory came from: `cgroup-v1` (the server's own group) or `sockstat-host` (the host's TCP memory). */
    val kernelMemorySource: String? = null,
    /**
     * Each move of the host's wall clock against the pass's monotonic one (lab.bench.collect.RunClock): the VM was paused, or its
     * clock was set. The harness's series are on the monotonic clock; k6 stamps its own samples by the wall clock.
     */
    val wallClockSteps: List<WallClockStep> = emptyList(),
    /** The futex hash the server's threads waited in, as its READY line says (lab.support.FutexHash): `global` or `private-<buckets>`. */
    val futexHash: String? = null,
    /** The most threads the server's bounded pool may start, as its READY line says (lab.support.ServerConfig.poolThreadsMax); null where none is bounded. */
    val poolThreadsMax: Int? = null,
) {
    val ok: Boolean get() = status == OK

    companion object {
        const val OK = "ok"
        const val FAILED = "failed"
    }
}
