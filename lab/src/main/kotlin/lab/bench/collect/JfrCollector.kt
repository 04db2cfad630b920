package lab.bench.collect

import jdk.jfr.consumer.EventStream
import jdk.jfr.consumer.RecordedEvent
import lab.bench.folder.SeriesCsv
import java.io.File
import java.time.Duration
import java.util.concurrent.atomic.AtomicLong

/**
 * Reads a server's JFR events while it records them, from the folder of chunks it writes to
 * disk ([JfrRecording]), into tidy rows of `jfr-series.csv` (time, phase, metric, value) and
 * `pinned.csv`. The stream starts with the next events the server flushes (JFR flushes once a
 * second); what JFR records is the server's settings file, not the collector's to choose.
 */
class JfrCollector(chunks: File, dir: File, private val clock: RunClock) : AutoCloseable {
    @Volatile var heapUsedBytes: Long? = null
        private set
    val pinnedEvents = AtomicLong()

    private val stream = EventStream.openRepository(chunks.toPath())
    private val series = SeriesCsv.create(dir, "jfr-series.csv")
    private val pinned = SeriesCsv.create(dir, "pinned.csv")

    init {
        stream.onEvent(::record)
    }

    private val reader = Thread.ofPlatform().daemon().name("jfr-reader").unstarted { stream.start() }

    fun start() = reader.start()

    private fun record(event: RecordedEvent) {
        val at = clock.secondsAtJfr(event.startTime)
        when (event.eventType.name) {
            "jdk.ResidentSetSize" -> row(at, "rss_bytes", event.getLong("size"))
            "jdk.GCHeapMemoryUsage" -> {
                heapUsedBytes = event.getLong("used")
                row(at, "heap_used_bytes", event.getLong("used"))
                row(at, "heap_committed_bytes", event.getLong("committed"))
            }
            // The heap after a collection is the live set: what the sockets really hold.
            "jdk.GCHeapSummary" -> if (event.getString("when") == "After GC") row(at, "heap_after_gc_bytes", event.getLong("heapUsed"))
            "jdk.GarbageCollection" -> {
                row(at, "gc_pause_ms", event.getDuration("sumOfPauses").toNanos() / 1e6)
                // The whole cycle, at its start: ZGC collects concurrently, on the server's CPU, and a major cycle ran for seconds
                // on a curve step's budget, where its pauses were under a millisecond (docs/under-load.md, "What moves a pass's limit").
                val cycleSeconds = event.duration.toNanos() / 1e9
                for (metric in cycleMetrics(event.getString("name"), event.getString("cause"))) row(at, metric, cycleSeconds)
            }
            "jdk.CPULoad" -> {
                // How late the harness sees what the server recorded: the stream's own delay, once a second, on the pass's
                // monotonic axis (a move of the wall clock would read as a delay).
                row(at, "jfr_lag_ms", 1000 * (clock.seconds() - clock.secondsAtJfr(event.endTime)))
                row(at, "cpu_jvm_user", event.getFloat("jvmUser"))
                row(at, "cpu_jvm_system", event.getFloat("jvmSystem"))
                row(at, "cpu_machine", event.getFloat("machineTotal"))
            }
            "jdk.JavaThreadStatistics" -> row(at, "java_threads", event.getLong("activeCount"))
            "jdk.VirtualThreadSubmitFailed" -> row(at, "vthread_submit_failed", 1)
            "jdk.ExecuteVMOperation" -> row(at, "vm_operation_ms", event.duration.toNanos() / 1e6)
            "jdk.ZAllocationStall" -> row(at, "allocation_stall_ms", event.duration.toNanos() / 1e6)
            "jdk.VirtualThreadPinned" -> {
                pinnedEvents.incrementAndGet()
                val frames = event.stackTrace?.frames.orEmpty().take(8)
                    .joinToString(" < ") { "${it.method.type.name}.${it.method.name}" }
                runCatching { pinned.row(at, clock.phase(at), event.duration.toNanos() / 1e6, frames) }
            }
        }
    }

    // An event that arrives after close has nowhere to go, hence runCatching around the writes.
    private fun row(at: Double, metric: String, value: Number) {
        runCatching { series.row(at, clock.phase(at), metric, value) }
    }

    companion object {
        private const val CLOSE_TIMEOUT_S = 10L

        /**
         * The series' metrics for a collection named [gcName] for [cause] (jdk.GarbageCollection's `name` and `cause`):
         * generational ZGC, the lab's collector ([lab.support.Collector]), names its cycles "ZGC Major" and "ZGC Minor"; G1 its
         * young collections "G1New", its concurrent cycles of the whole heap "G1Old" and a full collection "G1Full". A
         * major cycle of ZGC's warm-up rule is also `gc_major_warmup_cycle_s`: ZGC runs one as the heap in use first passes
         * 10%, 20% and 30% of its soft maximum, three in all, and when the last falls depends on how fast the server's heap
         * fills, not on its load at that moment, so a reader must see which phase it fell in (docs/JOURNAL.md, "The steady
         * phase's major cycles are ZGC's warm-up rule").
         */
        fun cycleMetrics(gcName: String?, cause: String?): List<String> = when {
            MAJOR_NAMES.none { gcName.orEmpty().contains(it) } -> listOf("gc_minor_cycle_s")
            cause == ZGC_WARMUP_CAUSE -> listOf("gc_major_cycle_s", "gc_major_warmup_cycle_s")
            else -> listOf("gc_major_cycle_s")
        }

        /** What names a collection of the whole heap, in ZGC's cycles' names and in G1's. */
        private val MAJOR_NAMES = listOf("Major", "G1Old", "G1Full")

        /** The cause JFR gives a cycle of ZGC's warm-up rule (HotSpot's GCCause::_z_warmup). */
        const val ZGC_WARMUP_CAUSE = "Warmup"
    }

    /**
     * Stops reading, within [CLOSE_TIMEOUT_S]: the reader checks for new chunks about once a
     * second. The server's own recording (`server.jfr`) does not depend on it.
     */
    override fun close() {
        stream.close()
        reader.join(Duration.ofSeconds(CLOSE_TIMEOUT_S))
        series.close()
        pinned.close()
        if (reader.isAlive) throw IllegalStateException("its reader did not stop within $CLOSE_TIMEOUT_S s")
    }
}
