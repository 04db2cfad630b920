package lab.floor

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.options.validate
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.bench.folder.RunFolderFormat
import lab.bench.load.BenchInputException
import lab.bench.load.Profile
import lab.floor.tasks.FloorDefaults
import lab.floor.tasks.Model
import lab.floor.tasks.StepMeasurement
import lab.floor.tasks.TaskShape
import lab.floor.tasks.ballastOption
import lab.floor.tasks.modelsOption
import lab.floor.tasks.stepsOption
import lab.floor.tasks.warmthsOption
import lab.support.JvmFlags
import lab.support.LabMain
import lab.support.ManifestFile
import lab.support.NotAJdk
import lab.support.Provenance
import lab.support.RunFolder
import lab.support.collectorOption
import java.io.File
import java.util.Locale

/**
 * `make floor`: each concurrency model's own cost per parked task, with no server
 * (docs/EXPERIMENTS.md, "Each model's floor"). For every JDK x model x call depth x warmth x repeat it starts a fresh JVM
 * of the floor program (`floor/target/floor.jar`, lab.floor.tasks) with the bench's flags and heap plus NMT, which
 * parks tasks in steps and measures each step; this writes every step to
 * `results/<time>-floor/floor.csv`, and the manifest says what ran and what failed. A JVM that
 * fails is recorded and the run goes on. The analysis fits the bytes per task.
 */
private class FloorCommand(private val argv: List<String>) : CliktCommand(name = "floor") {
    override fun help(context: Context) = "Each concurrency model's memory per parked task, with no server, on each JDK."

    private val jdkHomes by option("--jdk", help = "a JDK home to park the tasks on; repeat for each JDK").file().multiple(required = true)
    private val repo by option("--repo", help = "the lab's repository root").file().default(File("."))
    private val resultsDir by option("--results", help = "where run folders go").file().default(File("results"))
    private val models by modelsOption()
    private val depths by option("--depths", help = "call depths each task parks at, comma-separated").int().split(",")
        .default(FloorDefaults.DEPTHS)
        .validate { depths -> require(depths.all { it in TaskShape.DEPTHS }) { "must each be in ${TaskShape.DEPTHS}, got $depths" } }
    private val steps by stepsOption()
    private val warmths by warmthsOption()
    private val repeats by option(
        "--repeats",
        help = "JVMs per JDK, model and depth; the report gives a range from 3",
    ).int().restrictTo(1..MAX_REPEATS).default(3)
    private val seed by option("--seed", help = "for the order of each repeat's JVMs").long().default(System.currentTimeMillis())
    private val cellTimeoutSeconds by option("--cell-timeout-seconds", help = "how long one JVM may take").long()
        .restrictTo(10L..3_600L).default(300)
    private val ballastBytes by ballastOption()
    private val collector by collectorOption("every floor JVM")

    override fun run() {
        val runtimes = mutableMapOf<String, JdkRuntime>()
        val jdks = jdkHomes.map { home ->
            try {
                Provenance.Jdk.read(home)
            } catch (e: NotAJdk) {
                throw UsageError("${e.message}; setup/jdk.sh 21 or 25 prints one")
            }
        }.distinctBy { it.home }.map { jdk ->
            val runtime = JdkRuntime.of(jdk.home).also { runtimes["${jdk.feature}"] = it }
            jdk.copy(vendor = jdk.vendor ?: runtime.vendor)
        }
        if (jdks.map { it.feature }.toSet().size <
            jdks.size
        ) {
            throw UsageError("--jdk: give each JDK feature version once, got ${jdks.map { it.version }}")
        }
        val jar = File(repo, JAR)
        if (!jar.isFile) throw UsageError("${jar.path} is missing; run `make build` first")
        val heapMb = Profile.load(File(repo, "loadtests/profiles"), BENCH_PROFILE).heapMb
        val flags = jdks.associate { "${it.feature}" to JvmFlags.common(heapMb, it.feature, collector) + NMT }

        val dir = RunFolder.create(resultsDir, "floor")
        val manifest = ManifestFile(File(dir, "manifest.json"), FloorManifest.serializer(), firstManifest(jdks, runtimes, flags, heapMb)) {
            System.err.println("stopped: ${dir.path} is marked incomplete")
        }
        val csv = FloorCsv(File(dir, "floor.csv"))
        val cells = FloorPlan.cells(jdks, models, depths, warmths, repeats, seed)
        println(
            "floor: ${models.joinToString { it.slug }} at depths ${depths.joinToString()}, ${warmths.joinToString { it.slug }}, " +
                "on JDK ${jdks.joinToString { it.version }}, " +
                "$repeats repeats, steps ${steps.joinToString(",")}: ${cells.size} JVMs, into ${dir.path}",
        )
        val clock = RunProgress(cells)
        for (cell in cells) {
            val command = listOf(File(cell.jdk.home, "bin/java").path) + flags.getValue("${cell.jdk.feature}") +
                listOf("-jar", jar.path, "--model", cell.model.slug, "--depth", "${cell.depth}", "--steps", steps.joinToString(",")) +
                listOf("--warmup-rounds", "${cell.warmth.warmupRounds(cell.model)}") +
                (if (ballastBytes > 0) listOf("--ballast-bytes", "$ballastBytes") else emptyList())
            val result = FloorJvm(command, File(dir, cell.logName), steps.size, cellTimeoutSeconds).run { step -> clock.step(cell, step) }
            val outcome = cell.outcome(result.steps.size, result.seconds, result.failure)
            if (result.failure == null) csv.append(cell, result.steps)
            clock.ended(cell, outcome)
            manifest.update {
                it.copy(
                    cells = it.cells + outcome,
                    problems =
                    it.problems + listOfNotNull(result.failure?.let { why -> "${cell.label}: $why" }),
                )
            }
        }
        val problems = manifest.current.problems
        manifest.end(if (problems.isEmpty()) Provenance.COMPLETE else Provenance.FAILED)
        problems.forEach { System.err.println("make floor: $it") }
        println("run folder: ${dir.path}")
        if (problems.isNotEmpty()) throw RunFailed("${problems.size} of ${cells.size} JVMs failed; the others are in floor.csv")
    }

    private fun firstManifest(
        jdks: List<Provenance.Jdk>,
        runtimes: Map<String, JdkRuntime>,
        flags: Map<String, List<String>>,
        heapMb: Int,
    ) = FloorManifest(
        provenance = Provenance.start("lab.floor.FloorMain " + argv.joinToString(" "), Provenance.Jdk.current(), repo),
        runFolderFormat = RunFolderFormat.version,
        jdks = jdks,
        jdkRuntimes = runtimes,
        jvmFlags = flags,
        collector = collector.slug,
        settings = FloorManifest.Settings(
            models = models.map { it.slug },
            depths = depths,
            warmths = warmths.map { it.slug },
            steps = steps,
            repeats = repeats,
            heapMb = heapMb,
            warmup = models.associate { it.slug to FloorDefaults.warmup(it) },
            liveLocalsPerFrame = TaskShape.LIVE_LOCALS_PER_FRAME,
            ballastBytes = ballastBytes,
            seed = seed,
            cellTimeoutSeconds = cellTimeoutSeconds,
        ),
        models = Model.entries.filter { it in models }.associate { it.slug to it.waitsOn },
    )

    /** The progress lines: each step as it is measured, and each JVM's end, with the run's elapsed time and a rough time left. */
    private class RunProgress(private val cells: List<FloorCell>) {
        private val startNs = System.nanoTime()
        private val secondsByModel = mutableMapOf<Model, MutableList<Double>>()

        fun step(cell: FloorCell, step: StepMeasurement) = say(
            cell,
            "%,d tasks: live heap %.1f MiB, RSS %.1f MiB, %,d threads".format(
                Locale.ROOT,
                step.tasks,
                step.liveHeapBytes / MIB,
                step.rssBytes / MIB,
                step.threads,
            ),
        )

        fun ended(cell: FloorCell, outcome: FloorCell.Outcome) {
            secondsByModel.getOrPut(cell.model) { mutableListOf() } += outcome.seconds
            say(cell, "${outcome.status} in %.1f s%s".format(Locale.ROOT, outcome.seconds, outcome.reason?.let { ": $it" } ?: ""))
        }

        private fun say(cell: FloorCell, what: String) =
            println(
                "[%2d/%d] %-34s %s | %s elapsed, %s left".format(
                    Locale.ROOT,
                    cell.order,
                    cells.size,
                    cell.label,
                    what,
                    clock(elapsed()),
                    left(cell),
                ),
            )

        private fun elapsed() = (System.nanoTime() - startNs) / 1e9

        /** The JVMs still to run, each as long as its model's took so far (or any model's, before one has run). */
        private fun left(current: FloorCell): String {
            val all = secondsByModel.values.flatten()
            if (all.isEmpty()) return "?"
            val seconds = cells.filter { it.order > current.order }.sumOf { cell -> (secondsByModel[cell.model] ?: all).average() }
            return "~" + clock(seconds)
        }

        private fun clock(seconds: Double) = "%d:%02d".format(Locale.ROOT, seconds.toLong() / 60, seconds.toLong() % 60)
    }

    companion object {
        const val JAR = "floor/target/floor.jar"

        /** The profile whose heap the floor JVMs get: `make bench`'s default, so the floor is the bench servers' JVM. */
        const val BENCH_PROFILE = "local"

        /** NMT's summary mode: its thread and stack figures, at a small cost per malloc, the same for every model. */
        val NMT = listOf("-XX:NativeMemoryTracking=summary")
        const val MAX_REPEATS = 20
        const val MIB = 1024.0 * 1024.0
    }
}

private class RunFailed(message: String) : IllegalStateException(message)

// The floor JVMs are stopped by Children's shutdown hook as this JVM exits.
fun main(args: Array<String>): Unit = LabMain.exit(
    "make floor",
    FloorCommand(args.toList()),
    args,
    badInput = { it is BenchInputException },
    failure = { it is IllegalStateException },
)
