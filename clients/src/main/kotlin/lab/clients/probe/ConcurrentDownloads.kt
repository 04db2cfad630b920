package lab.clients.probe

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import lab.support.ProcView
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.concurrent.thread

/**
 * Several large downloads from one server at once, through one client (the JDK's), to show how
 * each server's thread model moves bytes: the aggregate rate, the server's CPU time, and how
 * many OS threads it ran while the bytes flowed (sampled every [SAMPLE_MS] ms from /proc).
 */
class ConcurrentDownloads(private val timeoutMs: Long) {
    fun measure(server: String, serverUrl: String, pid: Long, streams: Int, sizeBytes: Long, repeat: Int): ConcurrentSample {
        val process = ProcView(pid)
        val threadsBefore = process.threads()
        val peak = AtomicInteger(threadsBefore ?: 0)
        val sampling = AtomicBoolean(true)
        val sampler = thread(name = "server-thread-sampler", isDaemon = true) {
            while (sampling.get()) {
                process.threads()?.let { n -> peak.accumulateAndGet(n, ::maxOf) }
                Thread.sleep(SAMPLE_MS)
            }
        }
        val cpuBefore = process.cpuMs()
        val startedNs = System.nanoTime()
        val client = CLIENT.open(streams)
        val received = try {
            client.use { jdk ->
                runBlocking {
                    withTimeout(timeoutMs) {
                        (1..streams).map { async { jdk.download(DownloadProbe.url(serverUrl, sizeBytes)) { _, _, _ -> } } }.awaitAll()
                    }
                }
            }
        } catch (e: Exception) {
            return ConcurrentSample(server, CLIENT.slug, streams, sizeBytes, repeat, error = "${e::class.simpleName}: ${e.message}")
        } finally {
            sampling.set(false)
            sampler.join()
        }
        val seconds = (System.nanoTime() - startedNs) / 1e9
        val total = received.sum()
        return ConcurrentSample(
            server = server, client = CLIENT.slug, streams = streams, sizeBytes = sizeBytes, repeat = repeat, seconds = seconds,
            mbPerSecond = total / 1e6 / seconds, serverCpuMs = cpuBefore?.let { before -> process.cpuMs()?.minus(before) },
            serverThreadsBefore = threadsBefore, serverThreadsPeak = peak.get(),
            error = if (total != streams * sizeBytes) "received $total bytes of ${streams * sizeBytes}" else null,
        )
    }

    companion object {
        val CLIENT = ClientKind.JDK
        const val SAMPLE_MS = 50L
    }
}
