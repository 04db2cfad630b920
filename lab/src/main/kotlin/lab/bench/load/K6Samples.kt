package lab.bench.load

import java.io.File
import java.util.zip.GZIPOutputStream

/**
 * k6's raw samples, every one of them, as the lab keeps them: gzip-compressed CSV in [FILE], the
 * analysis's source for per-second latency, dropped iterations by phase and k6's figures over merged
 * segments.
 *
 * k6 buffers samples and writes them out every [SAVE_INTERVAL], on the CPU it sends requests from,
 * so each write holds back the answers that arrive meanwhile, and a long write shows as k6's own
 * latency. So the writes are short and frequent, and plain text ([WRITTEN]): k6's compression was
 * about half of each write, and the harness compresses the file once k6 has ended ([compress]).
 *
 * k6 cannot be told to write only the metrics the analysis reads (grafana/k6#1321 is open), so
 * each request is still about 13 rows; a k6 on load generators of its own ([K6Segments]), with
 * CPUs to spare, compresses as it writes. It can be told which of its own tags to put on each
 * row ([SYSTEM_TAGS]): by default 14, among them the URL, which on /dashboard takes 1,000 values,
 * and with only those the lab reads its p99, memory and CPU fell. What each choice cost k6's p99:
 * docs/under-load.md, "What k6's own outputs cost", and docs/JOURNAL.md, "What k6's own outputs
 * cost" and "The latency-throughput curve with k6".
 */
object K6Samples {
    const val FILE = "k6-metrics.csv.gz"

    /** What a local k6 writes, plain, until [compress] makes it [FILE]. */
    const val WRITTEN = "k6-metrics.csv"

    /** How often k6 writes its buffered samples out: a fiftieth of its default, so that no write is long. */
    const val SAVE_INTERVAL = "20ms"

    /**
     * The tags of k6's own that each sample carries: the scenario (dropped iterations and failures
     * are counted by it), the status (tests read a request's answer by it), and a check's name and
     * whether a response was expected, which k6's own checks and failure rate use. The lab's own
     * tag, `endpoint` (the phase a request was sent in), is kept whatever this says.
     */
    const val SYSTEM_TAGS = "scenario,status,check,expected_response"

    /** The `--out` value that writes every sample to [path] (a `.gz` name compresses it) every [SAVE_INTERVAL]. */
    fun outArgument(path: String): String = "csv=fileName=$path,saveInterval=$SAVE_INTERVAL"

    /** k6's arguments for writing every sample to [path] as the lab does: [outArgument], with only [SYSTEM_TAGS]. */
    fun arguments(path: String): List<String> = listOf("--out", outArgument(path), "--system-tags", SYSTEM_TAGS)

    fun writtenIn(dir: File) = File(dir, WRITTEN)

    /** Compresses [dir]'s [WRITTEN] into [FILE] and removes it; nothing to do once done, or if k6 wrote nothing. */
    fun compress(dir: File) {
        val plain = writtenIn(dir)
        if (!plain.isFile) return
        val partial = File(dir, "$FILE.partial")
        plain.inputStream().use { input -> GZIPOutputStream(partial.outputStream(), 1 shl 16).use { input.copyTo(it, 1 shl 16) } }
        // Renamed whole, so a stop mid-way leaves the plain samples, never a cut-off archive.
        check(partial.renameTo(File(dir, FILE))) { "could not rename $partial" }
        plain.delete()
    }
}
