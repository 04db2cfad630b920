package lab.bench

import kotlinx.serialization.Serializable
import lab.bench.collect.StepPlateau

/**
 * How one server's run ended, and its headline figures. A server that died is data too:
 * [status] says so, [reason] says why, and the figures hold what was measured until then.
 */
@Serializable
data class ServerOutcome(
    val server: String,
    /** This pass's folder in the run folder (`vthread`, `vthread-r2`, ...), so that no reader rebuilds its name. */
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
    val jsonP99Ms: Double? = null,
    val jsonRequests: Long? = null,
    /** /json responses per second over the JSON phase: the throughput the server achieved. */
    val jsonPerSecond: Double? = null,
    /** Every iteration k6 could not start on time, in all phases. */
    val droppedIterations: Long? = null,
    /** Those of the steady /json phase: zero when the server sustained the rate. */
    val jsonDroppedIterations: Long? = null,
    val failedChecks: Long? = null,
    /** The idle sockets k6 opened, of those the profile (after the preflight) asked for. */
    val socketsOpened: Long? = null,
    val socketsPlanned: Int? = null,
    /**
     * What makes this pass's figures not the profile's, though the server ran to the end: k6
     * checks that failed, sockets that never opened. One sentence each; the report shows them.
     */
    val marks: List<String> = emptyList(),
    val pinnedEvents: Long? = null,
    val steps: List<StepPlateau> = emptyList(),
) {
    val ok: Boolean get() = status == OK

    companion object {
        const val OK = "ok"
        const val FAILED = "failed"
    }
}
