package lab.clients.probe

import kotlinx.serialization.Serializable

/** One line of `threads.jsonl`: one client making `requests` concurrent calls that each wait `delayMs`. */
@Serializable
data class ThreadSample(
    val client: String,
    val requests: Int,
    val delayMs: Long,
    /** 0 for the warm-up, then 1 to the number of repeats. */
    val repeat: Int,
    /** Where the client came in its repeat's random order, from 1. */
    val position: Int,
    val censusAtMs: Long,
    val activeUnparkedNew: Int,
    val activeUnparked: Int,
    val activeNew: Int,
    val active: Int,
    val osThreads: Int?,
    val unparkedNewByName: Map<String, Int>,
    /** Calls the stub had started and not yet answered at the census: all `requests` when the census is fair. */
    val inFlightAtCensus: Long,
    val finishedAtCensus: Long,
    val wallMs: Double,
    val failedRequests: Int,
    val firstError: String?,
    /** The client's own threads still alive [ThreadAudit.CLOSE_GRACE_MS] after `close()`. */
    val leftBehind: List<String>,
    /** Threads of [SharedPools] this measurement started that were still alive then. */
    val sharedPoolThreads: List<String>,
)
