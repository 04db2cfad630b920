package lab.bench

import java.io.File

/**
 * What a pass measured besides its series, however it ended: its outcome (PassOutcome) is built from it. Each fact is
 * recorded as it is seen, by a copy; what a collector measured is added once it is stopped ([PassCollectors]).
 */
internal data class PassMeasured(
    /** The server's READY line: the facts it announced (its futex hash, its pool's bound) go into its outcome. */
    val readyLine: String? = null,
    /** Wall-clock time k6 was started: the collections its Go runtime writes to k6.log are timed from it. */
    val k6StartEpochMs: Long? = null,
    /** Wall-clock time k6's timeline started: its samples are stamped in epoch seconds. */
    val loadStartEpochMs: Long? = null,
    val peakSockets: Int = 0,
    val peakRss: Long = 0,
    val peakThreads: Int = 0,
    /** How the pass lost its stub, if it did: the server then answers /dashboard with 502, and the pass goes on. */
    val stubLost: String? = null,
    /** Why this pass has no wire.csv, on a host that lets the harness read no packets. */
    val noWire: String? = null,
    /** k6's end-of-test summary, where k6 ran. */
    val k6Summary: File? = null,
    /** The packets the wire capture dropped: their requests are missing from wire.csv. */
    val wireDroppedPackets: Long = 0,
    /** The virtual-thread pinning events JFR streamed, where it streamed. */
    val pinnedEvents: Long? = null,
    /** What the collectors and the curve's load generators saw go wrong, in the order they started. */
    val problems: List<String> = emptyList(),
)
