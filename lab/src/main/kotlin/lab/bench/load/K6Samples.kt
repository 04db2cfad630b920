package lab.bench.load

/**
 * k6's raw samples, every one of them, as the lab keeps them: gzip-compressed CSV in [FILE], the
 * analysis's source for per-second latency, dropped iterations by phase and k6's figures over merged
 * segments.
 *
 * k6 buffers samples and writes them out every [SAVE_INTERVAL]. Its default, once a second, makes
 * each write a burst of about 13 rows a request (13,000 at 1,000/s) that holds k6's one CPU while
 * the answers waiting for it queue: with `/json` alone at 1,000/s, k6's p99 was 55 ms with samples
 * written once a second, 13.5 ms every 100 ms and 4.8 ms with no output (medians of 3 interleaved
 * passes, K6OutputCostIT, which holds the lab's interval to beating the default).
 */
object K6Samples {
    const val FILE = "k6-metrics.csv.gz"

    /** How often k6 writes its buffered samples out: a tenth of its default, so that no write is long. */
    const val SAVE_INTERVAL = "100ms"

    /** The `--out` value that writes every sample to [path] (a `.gz` name compresses it) every [SAVE_INTERVAL]. */
    fun outArgument(path: String): String = "csv=fileName=$path,saveInterval=$SAVE_INTERVAL"
}
