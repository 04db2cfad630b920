package lab.sweep

import lab.bench.collect.HeapHistogram
import lab.bench.collect.Jcmd
import lab.bench.collect.KernelMemory
import lab.bench.collect.MemorySnapshot
import lab.bench.collect.NmtSummary
import lab.handlers.LabJson
import lab.handlers.ServerStats
import lab.support.ProcView
import lab.support.sendWithin
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

/**
 * A server's memory taken apart while requests are in flight, by the bench's method for idle
 * sockets (lab.bench.collect.MemoryCollector): the live heap after a full GC (`jcmd
 * GC.class_histogram`), NMT's committed bytes by category, the kernel's memory for the server,
 * and RSS and PSS from /proc, each in bytes under the component names of the bench's memory.csv.
 * The server's own count of requests in flight is read before and after the full GC, since the
 * figures are per request in flight. Unlike the bench's snapshot it does not wait for the JIT to go quiet:
 * under load it never does.
 */
class InFlightMemory(private val pid: Long, baseUrl: String, private val kernel: KernelMemory) {
    private val proc = ProcView(pid)
    private val stats = URI("${baseUrl.trimEnd('/')}/stats")
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()

    data class Snapshot(val inFlightBefore: Int, val inFlightAfter: Int, val components: Map<String, Long>)

    fun snapshot(): Snapshot {
        val before = inFlight()
        val components = linkedMapOf(MemorySnapshot.LIVE_HEAP to HeapHistogram.parse(Jcmd.run(pid, "GC.class_histogram")).totalBytes)
        // The count that goes with the live heap, which the full GC has just counted; the rest takes another second or two.
        val after = inFlight()
        Jcmd.run(pid, "System.trim_native_heap")
        components += NmtSummary.parse(Jcmd.run(pid, "VM.native_memory", "summary", "scale=b")).components()
        components += kernel.read()
        val memory = proc.memory() ?: throw IllegalStateException("the server (pid $pid) exited during a memory snapshot")
        components[MemorySnapshot.RSS] = memory.rssBytes
        components[MemorySnapshot.PSS] = memory.pssBytes
        return Snapshot(before, after, components)
    }

    /** The server's own count of requests in flight, less this one. */
    fun inFlight(): Int {
        val request = HttpRequest.newBuilder(stats).timeout(Duration.ofSeconds(10)).build()
        val response = http.sendWithin(request, HttpResponse.BodyHandlers.ofString())
        check(response.statusCode() == 200) { "GET /stats answered ${response.statusCode()}" }
        return (LabJson.decode<ServerStats>(response.body()).inFlightRequests - 1).coerceAtLeast(0)
    }
}
