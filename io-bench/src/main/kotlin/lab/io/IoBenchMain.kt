package lab.io

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.core.context
import com.github.ajalt.clikt.output.MordantHelpFormatter
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import kotlinx.serialization.json.Json
import lab.support.LabMain
import lab.support.Provenance
import lab.support.RunFolder
import org.openjdk.jmh.runner.Runner
import org.openjdk.jmh.runner.RunnerException
import org.openjdk.jmh.runner.format.OutputFormatFactory
import org.openjdk.jmh.runner.options.VerboseMode
import java.io.File
import java.io.PrintStream
import java.time.Instant

/**
 * `make io-bench`: runs the JMH benchmarks of [FileReadBenchmark] and [SocketWriteBenchmark] and writes
 * `jmh.json` (JMH's results), `jmh.log` (JMH's output) and `io-bench.json` ([IoBenchManifest]) into `--out`.
 *
 * Exit code 0 when every benchmark passed, 1 when one failed (named on stderr), 2 on bad input.
 */
private class IoBenchCommand : CliktCommand(name = "io-bench") {
    init {
        context { helpFormatter = { MordantHelpFormatter(it, showDefaultValues = true) } }
    }

    override fun help(context: Context) =
        "Times whole-file reads and socket writes through Ktor, JVM streams, NIO and virtual threads, with JMH."

    private val outDir by option("--out", help = "the folder for jmh.json, jmh.log and io-bench.json; created").file().required()
    private val sizeBytes by option("--size-bytes", help = "bytes per read or write (128 MiB, as in 2021)")
        .long()
        .restrictTo(min = 1L)
        .default(Published2021.SIZE_BYTES)
    private val warmups by option("--warmups", help = "unmeasured single shots per fork").int().restrictTo(min = 0).default(3)
    private val iterations by option("--iterations", help = "measured single shots per fork").int().restrictTo(min = 1).default(10)
    private val forks by option("--forks", help = "fresh JVMs per benchmark").int().restrictTo(min = 1).default(1)
    private val only by option("--only", help = "run only benchmarks whose full name this regex finds a match in")
        .convert("REGEX") { pattern ->
            runCatching { Regex(pattern) }.getOrElse { fail("not a valid regular expression: ${it.message?.lineSequence()?.first()}") }
        }

    override fun run() {
        val startedAt = Instant.now()
        // `make io-bench` runs this from the repository root, whose commit the manifest records.
        val provenance = Provenance.start(Provenance.thisCommand("io-bench"), Provenance.Jdk.current(), File("."))
        if (!outDir.isDirectory && !outDir.mkdirs()) throw UsageError("--out: cannot create $outDir")
        val jmhJson = File(outDir, "jmh.json")
        val jmhLog = File(outDir, "jmh.log")
        PrintStream(jmhLog, Charsets.UTF_8).use { logStream ->
            val log = OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL)
            val benchmarks = JmhSuite.select(only, log)
            if (benchmarks.isEmpty()) throw UsageError("--only: no benchmark matches ${only?.pattern}")
            println(
                "io-bench: ${benchmarks.size} benchmarks of $sizeBytes bytes, " +
                    "$warmups warmups + $iterations iterations x $forks fork(s), JDK ${Runtime.version()}, JMH output in ${jmhLog.path}",
            )
            val progress = ProgressFormat(log, System.out, benchmarks.size)
            val options = JmhSuite.options(benchmarks, sizeBytes, warmups, iterations, forks, jmhJson)
            val outcome = runCatching { Runner(options, progress).run() }
            val failed = outcome.exceptionOrNull()?.let { progress.unfinished.firstOrNull() ?: "unknown (see ${jmhLog.path})" }
            writeManifest(provenance.ended(if (failed == null) Provenance.COMPLETE else Provenance.FAILED), startedAt, benchmarks, failed)
            outcome.exceptionOrNull()?.let { error ->
                if (error !is RunnerException) throw error
                throw BenchmarkFailed("benchmark $failed failed: ${benchmarkCause(error)}; see ${jmhLog.path}")
            }
            val order = benchmarks.withIndex().associate { (index, name) -> name to index }
            println(ResultTable.render(outcome.getOrThrow().sortedBy { order[it.params.benchmark] }, sizeBytes))
            println("io-bench: results in ${jmhJson.path} and ${File(outDir, MANIFEST_FILE).path}")
        }
    }

    /** JMH wraps the benchmark's own exception (as a cause or a suppressed one) in its own: name the benchmark's. */
    private fun benchmarkCause(error: Throwable): String {
        val causes = generateSequence(error) { it.cause }.flatMap { sequenceOf(it) + it.suppressed.asSequence() }
        return (causes.lastOrNull { it.message != null } ?: error).toString()
    }

    private fun writeManifest(
        provenance: Provenance,
        startedAt: Instant,
        benchmarks: List<String>,
        failedBenchmark: String?,
    ) {
        val manifest =
            IoBenchManifest(
                provenance = provenance,
                wallMs = Instant.now().toEpochMilli() - startedAt.toEpochMilli(),
                forkedJvmFlags = ForkedJvm.flags(),
                sizeBytes = sizeBytes,
                warmups = warmups,
                iterations = iterations,
                forks = forks,
                only = only?.pattern,
                benchmarks = benchmarks,
                failedBenchmark = failedBenchmark,
                ktorVersion = BuildVersions.ktor,
                jmhVersion = BuildVersions.jmh,
                jmhResultsFile = "jmh.json",
                jmhLogFile = "jmh.log",
                published2021 = IoBenchManifest.Published(),
            )
        RunFolder.writeWhole(File(outDir, MANIFEST_FILE), JSON.encodeToString(IoBenchManifest.serializer(), manifest) + "\n")
    }

    companion object {
        const val MANIFEST_FILE = "io-bench.json"

        // Defaults are written out: the 2021 figures in the manifest are all defaults.
        private val JSON = Json {
            prettyPrint = true
            encodeDefaults = true
        }
    }
}

/** A benchmark failed its own check or threw: exit code 1, with the message on stderr. */
private class BenchmarkFailed(
    message: String,
) : RuntimeException(message)

fun main(args: Array<String>): Unit = LabMain.exit("make io-bench", IoBenchCommand(), args, failure = { it is BenchmarkFailed })
