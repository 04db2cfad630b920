package lab.bench.collect

import lab.bench.folder.SeriesCsv
import lab.support.ProcView
import java.io.File
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * Samples a process from /proc once a second into `proc.csv`: the kernel's own view of its
 * memory, threads, file descriptors and maps, as a cross-check on what JFR reports.
 */
class ProcSampler(pid: Long, private val out: File, private val clock: RunClock) : AutoCloseable {
    private val view = ProcView(pid)

    @Volatile
    var latest: ProcView.Memory? = null
        private set

    private val writer = SeriesCsv(out.bufferedWriter(), out.name, flushEachRow = true)
    private val timer = Executors.newSingleThreadScheduledExecutor { Thread(it, "proc-sampler").apply { isDaemon = true } }

    fun start() {
        timer.scheduleAtFixedRate(::sampleOnce, 0, 1, TimeUnit.SECONDS)
    }

    private fun sampleOnce() {
        val sample = view.memory() ?: return
        latest = sample
        writer.row(clock.seconds(), clock.phase(), sample.rssBytes, sample.pssBytes, sample.threads, sample.fds, sample.maps)
    }

    override fun close() {
        timer.shutdownNow()
        timer.awaitTermination(2, TimeUnit.SECONDS)
        writer.close()
    }
}
