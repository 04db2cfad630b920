package lab.io

import kotlinx.serialization.Serializable
import lab.support.Provenance

/**
 * `io-bench.json`: what a run was, beside JMH's own `jmh.json` (what it measured). An analysis reads both:
 * the settings, JDK and versions here; the per-benchmark samples in `jmh.json`.
 */
@Serializable
data class IoBenchManifest(
    /** Where and from what the run came; [Provenance.jdk] ran the tool, and so every forked benchmark. */
    val provenance: Provenance,
    val wallMs: Long,
    /** The flags of every forked benchmark JVM ([ForkedJvm]). */
    val forkedJvmFlags: List<String>,
    val sizeBytes: Long,
    val warmups: Int,
    val iterations: Int,
    val forks: Int,
    /** The `--only` filter, or null when every benchmark ran. */
    val only: String?,
    /** Every benchmark selected, by full JMH name, in the order they ran. */
    val benchmarks: List<String>,
    /** The benchmark that failed and stopped the run, or null when all passed. */
    val failedBenchmark: String?,
    val ktorVersion: String,
    val jmhVersion: String,
    /** File names, relative to this file's folder. */
    val jmhResultsFile: String,
    val jmhLogFile: String,
    val published2021: Published,
) {
    /** [Published2021], so an analysis can plot the old figures without a second copy of them. */
    @Serializable
    data class Published(
        val sizeBytes: Long = Published2021.SIZE_BYTES,
        val iterations: Int = Published2021.ITERATIONS,
        val statistic: String = "mean",
        val ktorVersion: String = Published2021.KTOR_VERSION,
        val meanMsByBenchmark: Map<String, Double> = Published2021.meanMsByBenchmark,
    )
}
