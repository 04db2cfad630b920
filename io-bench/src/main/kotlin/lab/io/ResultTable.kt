package lab.io

import org.openjdk.jmh.results.RunResult

/**
 * The short table printed at the end of a run: one row per benchmark, from JMH's results, with the 2021
 * article's mean beside it when this run moved the article's 128 MiB.
 *
 * Median rather than mean: single-shot timings on a small machine have a long upper tail (a GC, a page
 * fault storm), and the median says what a typical whole read or write costs. MB/s is 10^6 bytes per second
 * at the median time.
 */
object ResultTable {
    fun render(
        results: Collection<RunResult>,
        sizeBytes: Long,
    ): String {
        val comparable = sizeBytes == Published2021.SIZE_BYTES
        val header = listOf("benchmark", "median ms", "min-max ms", "MB/s", "alloc B/op", "2021 mean ms")
        val rows =
            results.map { result ->
                val name = result.params.benchmark.substringAfter("lab.io.")
                val stats = result.primaryResult.statistics
                val medianMs = stats.getPercentile(50.0)
                val allocatedBytes = result.secondaryResults[JmhSuite.ALLOCATED_BYTES_PER_OP_METRIC]?.score
                val published = Published2021.meanMsByBenchmark[name]?.takeIf { comparable }
                listOf(
                    name,
                    "%.1f".format(medianMs),
                    "%.1f-%.1f".format(stats.min, stats.max),
                    "%.0f".format(sizeBytes / 1e6 / (medianMs / 1e3)),
                    allocatedBytes?.let { "%.0f".format(it) } ?: "n/a",
                    published?.let { "%.1f".format(it) } ?: "",
                )
            }
        val widths = header.indices.map { column -> (rows.map { it[column] } + header[column]).maxOf { it.length } }
        val lines =
            (listOf(header) + rows).map { cells ->
                cells.mapIndexed { column, cell ->
                    if (column ==
                        0
                    ) {
                        cell.padEnd(widths[column])
                    } else {
                        cell.padStart(widths[column])
                    }
                }.joinToString("  ")
            }
        val note =
            if (comparable) {
                "2021: Ktor ${Published2021.KTOR_VERSION}, mean of ${Published2021.ITERATIONS} runs, another machine"
            } else {
                "2021 figures are for 128 MiB only: not shown for $sizeBytes bytes"
            }
        return (lines + note).joinToString("\n")
    }
}
