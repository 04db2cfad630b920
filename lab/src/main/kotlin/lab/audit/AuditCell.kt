package lab.audit

import kotlinx.serialization.Serializable

/**
 * What one subject (a pinning trap, or the ordinary request paths) did on one server and JDK,
 * as JFR's `jdk.VirtualThreadPinned` events recorded it.
 */
@Serializable
data class AuditCell(
    val subject: String,
    val server: String,
    val jdk: Int,
    /** A path the audit fails on if it pins: a trap's `-fixed` twin, or the request paths once warm. */
    val mustNotPin: Boolean,
    val requests: Int,
    val pinnedEvents: Int,
    val pinnedMs: Double,
    /** JDK 24+'s `pinnedReason` of each distinct kind; JDK 21 records none. */
    val reasons: List<String>,
    /** JDK 24+'s `blockingOperation` of each distinct kind (what the pinned thread blocked in). */
    val blockingOperations: List<String>,
    /** The carrier threads that were held, by name (JDK 24+'s `carrierThread`). */
    val carrierThreads: List<String>,
    /** The most frequent stack, innermost frame first; null if nothing pinned. */
    val topStack: String?,
    /** JDK 21's `-Djdk.tracePinnedThreads=full` reasons for this subject (MONITOR, NATIVE); null where the JDK ignores the flag. */
    val tracePinned: List<String>?,
    /** The server's OS threads after the subject's requests: what a server without virtual threads does instead is grow its pool. */
    val threadsAfter: Int?,
) {
    val pinned: Boolean get() = pinnedEvents > 0
}
