package lab.io

import org.openjdk.jmh.profile.GCProfiler
import org.openjdk.jmh.results.format.ResultFormatType
import org.openjdk.jmh.runner.BenchmarkList
import org.openjdk.jmh.runner.format.OutputFormat
import org.openjdk.jmh.runner.options.Options
import org.openjdk.jmh.runner.options.OptionsBuilder
import java.io.File
import java.util.regex.Pattern

/**
 * The JMH run `make io-bench` makes: which benchmarks, and with which options. Mode (single shot), unit (ms)
 * and the `sizeBytes` parameter are declared on the benchmark classes; the counts and the forked JVM's
 * flags are declared here, so one place says how every benchmark runs.
 */
object JmhSuite {
    /** The benchmark classes: one idea each. */
    val BENCHMARK_CLASSES: List<Class<*>> = listOf(FileReadBenchmark::class.java, SocketWriteBenchmark::class.java)

    /**
     * The label JMH 1.37's GC profiler gives allocated bytes per op; the secondary metric an analysis reads.
     * Measured for every thread of the forked JVM, so Ktor's `Dispatchers.IO` work is counted too.
     */
    const val ALLOCATED_BYTES_PER_OP_METRIC: String = "gc.alloc.rate.norm"

    /**
     * The full JMH names (`lab.io.FileReadBenchmark.ktorChannel`) of the benchmarks compiled into this jar,
     * from JMH's own list, narrowed to those [only] finds a match in (all of them when it is null).
     */
    fun select(
        only: Regex?,
        log: OutputFormat,
    ): List<String> =
        BenchmarkList
            .defaultList()
            .find(log, BENCHMARK_CLASSES.map { "^" + Pattern.quote(it.name + ".") }, emptyList())
            .map { it.username }
            .distinct()
            .filter { only == null || only.containsMatchIn(it) }

    /** The options that run exactly [benchmarks], writing JMH's JSON results to [resultsJson]. */
    fun options(
        benchmarks: List<String>,
        sizeBytes: Long,
        warmups: Int,
        iterations: Int,
        forks: Int,
        resultsJson: File,
    ): Options =
        OptionsBuilder()
            .apply { benchmarks.forEach { include("^" + Pattern.quote(it) + "$") } }
            .param("sizeBytes", sizeBytes.toString())
            .warmupIterations(warmups)
            .measurementIterations(iterations)
            .forks(forks)
            .jvmArgs(*ForkedJvm.flags().toTypedArray())
            .addProfiler(GCProfiler::class.java)
            .shouldFailOnError(true)
            .result(resultsJson.path)
            .resultFormat(ResultFormatType.JSON)
            .build()
}
