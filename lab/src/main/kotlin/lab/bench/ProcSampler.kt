package lab.bench

import java.io.File
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * Samples a process from /proc once a second into `proc.csv`: the kernel's own view of its
 * memory, threads, file descriptors and maps, as a cross-check on what JFR reports.
 */
class ProcSampler(private val pid: Long, private val out: File, private val clock: RunClock) : AutoCloseable {
    data class Sample(val rssBytes: Long, val pssBytes: Long, val threads: Int, val fds: Int, val maps: Int)

    @Volatile
    var latest: Sample? = null
        private set

    private val writer = out.bufferedWriter().apply { appendLine("time_s,phase,rss_bytes,pss_bytes,threads,fds,maps") }
    private val timer = Executors.newSingleThreadScheduledExecutor { Thread(it, "proc-sampler").apply { isDaemon = true } }

    fun start() {
        timer.scheduleAtFixedRate(::sampleOnce, 0, 1, TimeUnit.SECONDS)
    }

    private fun sampleOnce() {
        val sample = read(pid) ?: return
        latest = sample
        synchronized(writer) {
            writer.appendLine(
                "${clock.seconds()},${clock.phase()},${sample.rssBytes},${sample.pssBytes},${sample.threads},${sample.fds},${sample.maps}",
            )
            writer.flush()
        }
    }

    override fun close() {
        timer.shutdownNow()
        timer.awaitTermination(2, TimeUnit.SECONDS)
        synchronized(writer) { writer.close() }
    }

    companion object {
        /** One reading, or null once the process is gone. */
        fun read(pid: Long): Sample? = try {
            val status = File("/proc/$pid/status").readLines()
            fun kb(lines: List<String>, key: String) = lines.first { it.startsWith(key) }.split(Regex("\\s+"))[1].toLong() * 1024
            Sample(
                rssBytes = kb(status, "VmRSS:"),
                pssBytes = kb(File("/proc/$pid/smaps_rollup").readLines(), "Pss:"),
                threads = status.first { it.startsWith("Threads:") }.substringAfter(':').trim().toInt(),
                fds = File("/proc/$pid/fd").list()?.size ?: 0,
                maps = File("/proc/$pid/maps").useLines { it.count() },
            )
        } catch (e: Exception) {
            null
        }
    }
}
