package lab.clients.probe

import kotlinx.serialization.Serializable

/** One line of `downloads.jsonl`: one client (or curl) downloading one `/bytes` body from one server. */
@Serializable
data class DownloadSample(
    val client: String,
    val server: String,
    val sizeBytes: Long,
    /** 0 for the warm-up download, which is the one checked byte by byte; then 1 to the number of repeats. */
    val repeat: Int,
    val receivedBytes: Long? = null,
    val seconds: Double? = null,
    /** Decimal megabytes (10^6 bytes) a second, as download tools count. */
    val mbPerSecond: Double? = null,
    /** Heap the whole JVM allocated during the download; null for curl. */
    val allocatedBytes: Long? = null,
    /** Whether every byte was compared with the payload; [exact] is the result. */
    val verified: Boolean = false,
    val exact: Boolean? = null,
    val error: String? = null,
)

/** One line of `concurrent.jsonl`: several large downloads at once from one server, and what they cost the server. */
@Serializable
data class ConcurrentSample(
    val server: String,
    val client: String,
    val streams: Int,
    val sizeBytes: Long,
    val repeat: Int,
    val seconds: Double? = null,
    /** All streams' bytes over the wall time, in decimal MB a second. */
    val mbPerSecond: Double? = null,
    /** The server process's CPU time (user + system) during the downloads. */
    val serverCpuMs: Long? = null,
    val serverThreadsBefore: Int? = null,
    val serverThreadsPeak: Int? = null,
    val error: String? = null,
)
