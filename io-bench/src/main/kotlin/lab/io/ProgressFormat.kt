package lab.io

import org.openjdk.jmh.infra.BenchmarkParams
import org.openjdk.jmh.results.BenchmarkResult
import org.openjdk.jmh.runner.format.OutputFormat
import java.io.PrintStream

/**
 * JMH's output, sent to [log] (`jmh.log`), plus one line on [console] as each benchmark starts, so stdout
 * stays readable while JMH's several hundred lines go to the file.
 *
 * It also remembers which benchmarks started and which ended: when JMH stops on a failure it throws without
 * saying which benchmark failed, and [unfinished] names it.
 */
class ProgressFormat(
    private val log: OutputFormat,
    private val console: PrintStream,
    private val totalBenchmarks: Int,
) : OutputFormat by log {
    private val started = mutableListOf<String>()
    private val ended = mutableSetOf<String>()

    /** Benchmarks that started and did not end: after a failure, the one that failed. */
    val unfinished: List<String> get() = started.filterNot { it in ended }

    override fun startBenchmark(params: BenchmarkParams) {
        started += params.benchmark
        console.println("io-bench: [${started.size}/$totalBenchmarks] ${params.benchmark.substringAfter("lab.io.")}")
        console.flush()
        log.startBenchmark(params)
    }

    override fun endBenchmark(result: BenchmarkResult?) {
        result?.let { ended += it.params.benchmark }
        log.endBenchmark(result)
    }
}
