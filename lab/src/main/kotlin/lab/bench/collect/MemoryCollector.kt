package lab.bench.collect

import lab.handlers.LabJson
import lab.handlers.ServerStats
import lab.support.ProcView
import lab.support.sendWithin
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import java.util.Locale
import kotlin.math.abs

/**
 * Takes a server's memory apart at the moments the harness chooses (before the first socket,
 * then at the end of each socket plateau) and appends each [snapshot] to the pass's
 * `memory.csv` and `histogram.csv` ([MemoryCsv]). A snapshot, in this order:
 * 1. the server's own count of open sockets (`GET /stats`);
 * 2. `jcmd GC.class_histogram`: a full GC, then the live heap and its [LARGEST_CLASSES] largest classes;
 * 3. a wait until the JIT is idle ([JitQuiet]), so no compilation's arenas are in the native
 *    figures; it also gives the JDK's cleaner thread time to free the direct buffers the GC found dead;
 * 4. `jcmd System.trim_native_heap`: the C heap gives back to the kernel what is free in it
 *    (those direct buffers, the JIT's freed arenas), as the GC did for the Java heap;
 * 5. `jcmd VM.native_memory summary`: NMT's committed bytes by category (the server runs with
 *    `-XX:NativeMemoryTracking=summary`, as [lab.support.JvmFlags.forServer] has it);
 * 6. RSS and PSS from /proc, after the GC and the trim;
 * 7. the kernel's memory for the server, from [kernel];
 * 8. the server's count of open sockets again. The snapshot's count is the middle of the two.
 *    One during which it moved by more than [SOCKETS_MOVED_MAX] is no plateau's: the GC counted
 *    sockets somewhere between (a step's snapshot that ran into the next step's opens set 11,280
 *    sockets' objects against 7,560), so it is not written. Within that, the middle is at most
 *    half of it off; a server that accepts slowly (the platform server on one CPU) still takes
 *    its last few sockets while a snapshot of its 15,000 runs.
 *
 * Without the trim, memory that malloc freed stays resident, so the RSS would follow the most
 * ever held, not what is held now: the freed direct buffers of a few sockets hid part of the
 * next sockets' buffers from it (docs/JOURNAL.md, "Figures that were in the harness's
 * comments"). The RSS still moves with what the JIT and malloc keep and with heap pages garbage
 * first touched; the live heap and NMT do not.
 *
 * [Jcmd] reaches the server through the local attach mechanism; nothing listens on a port for it.
 * A snapshot takes a second or so (the GC, the JIT's quiet and three commands over the attach mechanism), and stops the
 * server's threads for the GC, so it belongs at a plateau's end, not under measured load.
 */
class MemoryCollector(
    private val pid: Long,
    /** The server's base URL, such as `http://127.0.0.1:8080`. */
    private val baseUrl: String,
    dir: File,
    private val clock: RunClock,
    private val kernel: KernelMemory,
) : AutoCloseable {
    private val proc = ProcView(pid)
    private val jit = JitQuiet(pid)
    private val csv = MemoryCsv(dir)
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

    /**
     * Takes one snapshot, appends it to the CSV files, and returns it. The wait for the JIT ends by
     * [deadlineNs] (a [System.nanoTime] instant), where one is given. Its phase is [phase], the one
     * it was taken for, or else the clock's. Throws, writing nothing, when the server's open sockets
     * moved while it was taken.
     */
    fun snapshot(deadlineNs: Long? = null, phase: String? = null): MemorySnapshot {
        val timeS = clock.seconds()
        val phase = phase ?: clock.phase(timeS)
        val socketsBefore = openSockets()
        val histogram = HeapHistogram.parse(Jcmd.run(pid, "GC.class_histogram"))
        jit.await(deadlineNs)
        // Prints "Not available" where the C library cannot trim (musl): the RSS then holds what malloc keeps.
        Jcmd.run(pid, "System.trim_native_heap")
        val nmt = NmtSummary.parse(Jcmd.run(pid, "VM.native_memory", "summary", "scale=b"))
        val memory = proc.memory() ?: throw IllegalStateException("the server (pid $pid) exited during a memory snapshot")
        val components = linkedMapOf(MemorySnapshot.LIVE_HEAP to histogram.totalBytes)
        components += nmt.components()
        components += kernel.read()
        components[MemorySnapshot.RSS] = memory.rssBytes
        components[MemorySnapshot.PSS] = memory.pssBytes
        val socketsAfter = openSockets()
        check(abs(socketsAfter - socketsBefore) <= SOCKETS_MOVED_MAX * socketsBefore) {
            "the server's open sockets went from $socketsBefore to $socketsAfter while it was taken (from %.1f s to %.1f s of the pass), so it is left out"
                .format(Locale.ROOT, timeS, clock.seconds())
        }
        val socketsOpen = (socketsBefore + socketsAfter) / 2
        val snapshot = MemorySnapshot(timeS, phase, socketsOpen, components, histogram.classes.take(LARGEST_CLASSES))
        csv.append(snapshot)
        return snapshot
    }

    override fun close() {
        csv.close()
        http.shutdownNow() // close() would wait for an exchange sendWithin gave up on
    }

    /**
     * Waits, at most until [deadlineNs] (a [System.nanoTime] instant), until the server's count of
     * open sockets has not moved for [STEADY_MS], and returns it: k6 opens a step's sockets over the
     * first half of the step, but on a busy load CPU its last opens come late, and a snapshot taken
     * while they arrive would set bytes read late against a count read early.
     */
    fun awaitSteadySockets(deadlineNs: Long): Int {
        var count = openSockets()
        var sinceNs = System.nanoTime()
        while (System.nanoTime() - deadlineNs < 0) {
            Thread.sleep(POLL_MS)
            val now = openSockets()
            if (now != count) {
                count = now
                sinceNs = System.nanoTime()
            } else if (System.nanoTime() - sinceNs >= STEADY_MS * 1_000_000) {
                break
            }
        }
        return count
    }

    /**
     * Waits, at most until [deadlineNs], until the server counts no open socket and no request in flight: at rest. After the
     * load, a backlog the curve left may still be answered, and what its requests hold is not the server's at rest. The
     * `/stats` request that asks is itself one in flight.
     */
    fun awaitIdle(deadlineNs: Long) {
        while (stats().let { it.openSockets > 0 || it.inFlightRequests > 1 } && System.nanoTime() - deadlineNs < 0) Thread.sleep(POLL_MS)
    }

    private fun openSockets(): Int = stats().openSockets

    private fun stats(): ServerStats {
        val request = HttpRequest.newBuilder(URI("${baseUrl.trimEnd('/')}/stats")).timeout(Duration.ofSeconds(10)).build()
        val response = http.sendWithin(request, HttpResponse.BodyHandlers.ofString())
        check(response.statusCode() == 200) { "GET /stats answered ${response.statusCode()}" }
        return LabJson.decode<ServerStats>(response.body())
    }

    companion object {
        /** How many classes of each histogram go to histogram.csv. */
        const val LARGEST_CLASSES = 25

        /** The most a snapshot's two counts of open sockets may differ by, as a fraction of the first. */
        const val SOCKETS_MOVED_MAX = 0.01

        /** A count of open sockets unchanged this long is a plateau's. */
        const val STEADY_MS = 1_000L
        private const val POLL_MS = 200L
    }
}
