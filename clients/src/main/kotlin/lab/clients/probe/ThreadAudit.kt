package lab.clients.probe

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference

/**
 * How many threads a client blocks while its calls wait, measured as the client-threads
 * article measures it: `requests` coroutines each make one call to the stub, which answers
 * after `delayMs`; [censusAtMs] in, the threads are counted ([ThreadCensus]) and the stub says
 * how many calls are in flight; then every call is awaited and the client closed, and any
 * thread it leaves behind is named.
 */
class ThreadAudit(private val stubUrl: String, private val delayMs: Long, private val censusAtMs: Long = 1_000) {
    init {
        require(censusAtMs < delayMs) { "the census (at $censusAtMs ms) must come while the calls wait ($delayMs ms)" }
    }

    fun measure(kind: ClientKind, requests: Int, repeat: Int, position: Int): ThreadSample {
        val before = ThreadCensus.liveIds()
        val callsBefore = StubCalls.read(stubUrl)
        val succeeded = AtomicInteger()
        val firstError = AtomicReference<String?>()
        lateinit var census: ThreadCensus
        lateinit var calls: StubCalls
        val startedNs = System.nanoTime()
        kind.open(requests).use { client ->
            runBlocking {
                try {
                    withTimeout(delayMs + CALL_SLACK_MS) {
                        coroutineScope {
                            repeat(requests) { i ->
                                launch {
                                    try {
                                        val body = client.getText("$stubUrl/profile/user-$i")
                                        check("user-$i" in body) { "the answer to user-$i was not its profile: ${body.take(80)}" }
                                        succeeded.incrementAndGet()
                                    } catch (e: CancellationException) {
                                        throw e
                                    } catch (e: Exception) {
                                        firstError.compareAndSet(null, "${e::class.simpleName}: ${e.message}")
                                    }
                                }
                            }
                            delay(censusAtMs)
                            census = ThreadCensus.take(before)
                            calls = StubCalls.read(stubUrl) - callsBefore
                        }
                    }
                } catch (e: CancellationException) {
                    firstError.compareAndSet(null, "not all calls were answered within ${delayMs + CALL_SLACK_MS} ms")
                }
            }
        }
        val wallMs = (System.nanoTime() - startedNs) / 1e6
        val (left, shared) = awaitThreadsGone(before)
        return ThreadSample(
            client = kind.slug, requests = requests, delayMs = delayMs, repeat = repeat, position = position, censusAtMs = censusAtMs,
            activeUnparkedNew = census.activeUnparkedNew, activeUnparked = census.activeUnparked, activeNew = census.activeNew,
            active = census.active, osThreads = census.osThreads, unparkedNewByName = census.unparkedNewByName,
            inFlightAtCensus = calls.started - calls.finished, finishedAtCensus = calls.finished,
            wallMs = wallMs, failedRequests = requests - succeeded.get(),
            firstError = firstError.get(), leftBehind = left, sharedPoolThreads = shared,
        )
    }

    /** Waits up to [CLOSE_GRACE_MS] for the client's threads to end; returns those still alive, the client's and the shared pools'. */
    private fun awaitThreadsGone(before: Set<Long>): Pair<List<String>, List<String>> {
        val deadlineNs = System.nanoTime() + CLOSE_GRACE_MS * 1_000_000
        while (true) {
            val (shared, own) = ThreadCensus.newSince(before).partition(SharedPools::owns)
            if (own.isEmpty() || System.nanoTime() > deadlineNs) return own to shared
            Thread.sleep(50)
        }
    }

    companion object {
        /** How long after `close()` a client's threads may take to end before they count as left behind. */
        const val CLOSE_GRACE_MS = 2_000L

        /** The stub delays the census can be fair to: it comes at 1 s, while every call still waits. */
        val DELAY_MS_RANGE = 1_100L..60_000L

        // Each call holds a connection, so a file descriptor on both ends: the host's open-files limit bounds it.
        const val MAX_REQUESTS = 5_000

        /** How long past the stub's delay the calls may take before the measurement gives up on them. */
        const val CALL_SLACK_MS = 60_000L
    }
}
