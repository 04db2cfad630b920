package lab.audit

import jdk.jfr.consumer.RecordedEvent
import jdk.jfr.consumer.RecordingFile
import lab.handlers.PinTrap
import lab.support.Children
import lab.support.JvmFlags
import lab.support.OrdinaryPaths
import lab.support.PinningRecording
import lab.support.ProcView
import lab.support.ServerEntry
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.time.Duration
import java.time.Instant
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * One server on one JDK through the audit: started with a JFR recording of every virtual-thread
 * pinning (no threshold, with stacks), driven subject by subject, stopped, and its recording
 * read back. Each pinning event belongs to the subject during whose requests it started.
 */
class ServerProbe(
    private val server: ServerEntry,
    private val jdkHome: File,
    private val jdkFeature: Int,
    private val repo: File,
    private val stubUrl: String,
    private val dir: File,
    private val requestsPerTrap: Int,
    private val blockMs: Long,
) {
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

    fun run(): List<AuditCell> {
        val name = "${server.name}-jdk$jdkFeature"
        val recording = File(dir, "$name.jfr")
        val log = File(dir, "$name.log")
        val process = Children.start(command(recording), log)
        val windows = mutableListOf<Window>()
        try {
            val url =
                Children.awaitReady(process, log, READY_TIMEOUT_S)
                    ?: error("$name did not print its READY line within $READY_TIMEOUT_S s; see ${log.path}")
            // First use loads and initializes classes under a request, which JDK 24+ records as
            // pinning; the same paths again, once warm, must not pin.
            windows += window(FIRST_PASS, mustNotPin = false, process) { requestPaths(url) }
            for (trap in PinTrap.entries) {
                windows += window(trap.slug, mustNotPin = trap.isFixed, process) {
                    // All at once, as a server meets them: more than the virtual-thread scheduler's
                    // carriers, so pinning starves it, and the other servers show their pools grow.
                    val answers = (1..requestsPerTrap).map { getAsync(url, "/pin/${trap.slug}?ms=$blockMs") }
                    answers.forEach { it.join() }
                    requestsPerTrap
                }
            }
            windows += window(WARM, mustNotPin = true, process) { requestPaths(url) }
        } finally {
            // SIGTERM: the JVM exits normally and writes the recording (dumponexit).
            Children.stop(process, graceSeconds = 10)
        }
        check(recording.isFile) { "$name wrote no JFR recording; see ${log.path}" }
        val events = RecordingFile.readAllEvents(recording.toPath()).filter { it.eventType.name == PinningRecording.EVENT }
        val traced = if (jdkFeature < 24) TracePinnedThreads.read(log) else null
        return windows.map { w ->
            w.cell(events.filter { w.holds(it.startTime) }, traced?.let { TracePinnedThreads.reasonsFor(it, w.subject) })
        }
    }

    private fun command(recording: File): List<String> = buildList {
        add(File(jdkHome, "bin/java").path)
        addAll(JvmFlags.forCheck(HEAP_MB))
        add(PinningRecording.jvmOption(recording, dir))
        // JDK 21's own pinning report, kept in the server's log beside JFR's (24+ ignore the flag).
        if (jdkFeature < 24) add("-Djdk.tracePinnedThreads=full")
        addAll(server.jarCommand(repo, listOf("--port", "0", "--downstream-url", stubUrl)))
    }

    /** Every ordinary endpoint a few times; returns the number of requests. */
    private fun requestPaths(url: String): Int {
        val paths = (0 until PATH_ROUNDS).flatMap(OrdinaryPaths::round)
        paths.forEach { get(url, it) }
        return paths.size
    }

    private fun get(url: String, path: String) = getAsync(url, path).join()

    private fun getAsync(url: String, path: String): CompletableFuture<Unit> {
        val exchange = http.sendAsync(
            HttpRequest.newBuilder(URI(url + path)).timeout(Duration.ofSeconds(ANSWER_SECONDS)).build(),
            HttpResponse.BodyHandlers.discarding(),
        )
        // The request's timeout ends at the answer's headers (lab.support.sendWithin says why that is not enough), so the
        // whole answer is bounded here, on a copy, so that a late exchange can still be cancelled.
        return exchange.copy().orTimeout(ANSWER_SECONDS, TimeUnit.SECONDS).handle { response, failure ->
            when (val cause = (failure as? CompletionException)?.cause ?: failure) {
                null -> check(response.statusCode() == 200) { "${server.name} answered $path with ${response.statusCode()}" }
                is TimeoutException -> {
                    exchange.cancel(true)
                    throw HttpTimeoutException("${server.name}: GET $path got no whole answer within $ANSWER_SECONDS s")
                }
                else -> throw cause
            }
        }
    }

    private fun window(subject: String, mustNotPin: Boolean, process: Process, drive: () -> Int): Window {
        val from = Instant.now()
        val requests = drive()
        return Window(subject, mustNotPin, from, Instant.now(), requests, ProcView(process.pid()).threads())
    }

    private inner class Window(
        val subject: String,
        val mustNotPin: Boolean,
        val from: Instant,
        val until: Instant,
        val requests: Int,
        val threadsAfter: Int?,
    ) {
        fun holds(at: Instant) = !at.isBefore(from) && at.isBefore(until)

        fun cell(events: List<RecordedEvent>, tracePinned: List<String>?) = AuditCell(
            subject = subject,
            server = server.name,
            jdk = jdkFeature,
            mustNotPin = mustNotPin,
            requests = requests,
            pinnedEvents = events.size,
            pinnedMs = events.sumOf { it.duration.toNanos() } / 1e6,
            reasons = events.distinctField("pinnedReason") { e, field -> e.getString(field) },
            blockingOperations = events.distinctField("blockingOperation") { e, field -> e.getString(field) },
            carrierThreads = events.distinctField("carrierThread") { e, field -> e.getThread(field)?.javaName },
            topStack = events.map(::stack).groupingBy { it }.eachCount().maxByOrNull { it.value }?.key,
            // Only a server whose handlers run on virtual threads has any to trace.
            tracePinned = tracePinned?.takeIf { server.traits.canPin },
            threadsAfter = threadsAfter,
        )
    }

    /** The distinct values of a field JDK 24+ added to the event; empty on a JDK without it. */
    private fun List<RecordedEvent>.distinctField(field: String, read: (RecordedEvent, String) -> String?): List<String> =
        mapNotNull { e -> if (e.hasField(field)) read(e, field) else null }.distinct().sorted()

    private fun stack(event: RecordedEvent): String =
        event.stackTrace?.frames.orEmpty().take(STACK_FRAMES).joinToString(" < ") { "${it.method.type.name}.${it.method.name}" }

    companion object {
        const val FIRST_PASS = "request paths, first pass"
        const val WARM = "request paths, warm"
        const val READY_TIMEOUT_S = 60L
        const val HEAP_MB = 512
        const val PATH_ROUNDS = 5
        const val STACK_FRAMES = 12

        /** The most a probe waits for a whole answer, pin traps included. */
        const val ANSWER_SECONDS = 30L
    }
}
