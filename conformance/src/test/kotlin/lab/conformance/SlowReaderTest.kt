package lab.conformance

import lab.bench.collect.HeapHistogram
import lab.bench.collect.Jcmd
import lab.conformance.RawWire.Frame
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.AtomicReference
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * A WebSocket client that sends frame after frame and never reads an echo. Every server must
 * push back, and stop reading the socket once its echoes cannot be written, rather than keep
 * the frames it cannot answer: the client's writes then block, and the server's live heap stays
 * within [HEAP_BOUND_BYTES] while the client tries to send [PUSHED_BYTES]. (Jetty's servers
 * demand one frame at a time and wait for its echo to be written; Ktor's queues each way are
 * bounded to one frame, where its default is unlimited.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SlowReaderTest {
    enum class Outcome { BLOCKED, ACCEPTED_ALL, CLOSED }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a client that never reads its echoes is blocked, and the server keeps none of them`(name: String) {
        val server = ConformanceLab.server(name)
        val before = liveHeap(server)
        RawWire.webSocket(server.baseUrl).use { wire ->
            val sent = AtomicLong()
            val failure = AtomicReference<Exception>()
            val frame = Frame.text("x".repeat(FRAME_BYTES))
            val writer = thread(isDaemon = true, name = "slow-reader") {
                try {
                    while (sent.get() < PUSHED_BYTES) {
                        wire.send(frame)
                        sent.addAndGet(FRAME_BYTES.toLong())
                    }
                } catch (e: Exception) {
                    failure.set(e)
                }
            }
            val outcome = awaitOutcome(writer, sent, failure)
            val during = liveHeap(server)
            println("$name: ${outcome.name.lowercase()} after ${sent.get() shr 20} MiB; live heap ${before shr 20} -> ${during shr 20} MiB")
            assertEquals(Outcome.BLOCKED, outcome, "what $name did with a client that never reads")
            assertTrue(during - before < HEAP_BOUND_BYTES, "$name's live heap grew by ${(during - before) shr 20} MiB")
        }
        assertEquals(200, LabClients.send(server.baseUrl, "/health").status, "the server lives on")
    }

    /** Blocked once the writer has made no progress for [STALL_MS]; or it sent everything, or its socket failed. */
    private fun awaitOutcome(writer: Thread, sent: AtomicLong, failure: AtomicReference<Exception>): Outcome {
        var last = -1L
        var lastChangeNs = System.nanoTime()
        while (true) {
            writer.join(POLL_MS)
            if (!writer.isAlive) return if (failure.get() == null) Outcome.ACCEPTED_ALL else Outcome.CLOSED
            val now = sent.get()
            if (now != last) {
                last = now
                lastChangeNs = System.nanoTime()
            } else if (System.nanoTime() - lastChangeNs > TimeUnit.MILLISECONDS.toNanos(STALL_MS)) {
                return Outcome.BLOCKED
            }
        }
    }

    /** The server's live heap: `GC.class_histogram` counts only what is reachable, after a full collection. */
    private fun liveHeap(server: LabProcess): Long = HeapHistogram.parse(Jcmd.run(server.pid, "GC.class_histogram")).totalBytes

    private companion object {
        /** Under the conformance servers' frame limit. */
        const val FRAME_BYTES = 4_000
        const val PUSHED_BYTES = 128L shl 20

        /** A few frames and the engines' buffers: well under what an unbounded queue of [PUSHED_BYTES] would keep. */
        const val HEAP_BOUND_BYTES = 16L shl 20
        const val STALL_MS = 2_000L
        const val POLL_MS = 100L
    }
}
