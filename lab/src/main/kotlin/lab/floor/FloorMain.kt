package lab.floor

import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.flag
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.options.validate
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.bench.folder.RunFolderFormat
import lab.bench.load.Profile
import lab.experiment.ExperimentMain
import lab.floor.tasks.FloorDefaults
import lab.floor.tasks.Model
import lab.floor.tasks.StepMeasurement
import lab.floor.tasks.TaskShape
import lab.floor.tasks.ballastOption
import lab.floor.tasks.modelsOption
import lab.floor.tasks.stepsOption
import lab.floor.tasks.warmthsOption
import lab.support.JvmFlags
import lab.support.Provenance
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
private class FloorCommand : ExperimentMain("floor") {
    override fun help(context: Context) = "Each concurrency model's memory per parked task, with no server, on each JDK."

    private val jdks by option(
        "--jdk",
        help = "a JDK home to park the tasks on; repeat for each JDK",
    ).file().jdk().multiple(required = true)
        .validate { jdks ->
            require(jdks.map { it.feature }.distinct().size == jdks.distinctBy { it.home }.size) {
                "give each JDK feature version once, got ${jdks.map { it.version }}"
            }
        }
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
    private val unlessMeasured by option(
        "--unless-measured",
        help = "park tasks only on the JDKs of which --results holds no whole floor of this collector, every model and warmth asked for",
    ).flag()

    override fun run() {
        val unmeasured = jdks.distinctBy { it.home }.filter { jdk -> !unlessMeasured || measured(jdk) == null }
        if (unmeasured.isEmpty()) return
        val runtimes = unmeasured.associate { "${it.feature}" to JdkRuntime.of(it.home) }
        val parkedOn = unmeasured.map { it.copy(vendor = it.vendor ?: runtimes.getValue("${it.feature}").vendor) }
        val jar = File(repo, JAR)
        requireBuilt(listOf(jar))
        val heapMb = Profile.load(File(repo, "loadtests/profiles"), BENCH_PROFILE).heapMb
        val flags = parkedOn.associate { "${it.feature}" to JvmFlags.common(heapMb, it.feature, collector) + NMT }

        val run = startRun("floor", FloorManifest.serializer(), firstManifest(parkedOn, runtimes, flags, heapMb))
        val csv = FloorCsv(File(run.folder, FloorCsv.FILE))
        val cells = FloorPlan.cells(parkedOn, models, depths, warmths, repeats, seed)
        println(
            "floor: ${models.joinToString { it.slug }} at depths ${depths.joinToString()}, ${warmths.joinToString { it.slug }}, " +
                "on JDK ${parkedOn.joinToString { it.version }}, " +
                "$repeats repeats, steps ${steps.joinToString(",")}: ${cells.size} JVMs, into ${run.folder.path}",
        )
        val clock = RunProgress(cells)
        for (cell in cells) {
            val command = listOf(File(cell.jdk.home, "bin/java").path) + flags.getValue("${cell.jdk.feature}") +
                listOf("-jar", jar.path, "--model", cell.model.slug, "--depth", "${cell.depth}", "--steps", steps.joinToString(",")) +
                listOf("--warmup-rounds", "${cell.warmth.warmupRounds(cell.model)}") +
                (if (ballastBytes > 0) listOf("--ballast-bytes", "$ballastBytes") else emptyList())
            val result = FloorJvm(command, File(run.folder, cell.logName), steps.size, cellTimeoutSeconds).run { step ->
                clock.step(cell, step)
            }
            val outcome = cell.outcome(result.steps.size, result.seconds, result.failure)
            if (result.failure == null) csv.append(cell, result.steps)
            clock.ended(cell, outcome)
            run.record { it.copy(cells = it.cells + outcome) }
            result.failure?.let { why -> run.problem("${cell.label}: $why") }
        }
        run.end { problems -> "${problems.size} of ${cells.size} JVMs failed; the others are in floor.csv" }
    }

    /** The newest whole floor in --results of [jdk] as asked for, said in a line; null, also said, where there is none. */
    private fun measured(jdk: Provenance.Jdk): File? {
        val (modelSlugs, warmthSlugs) = models.map { it.slug } to warmths.map { it.slug }
        val what = "JDK ${jdk.feature} on ${collector.label}, ${modelSlugs.joinToString()}, ${warmthSlugs.joinToString()}"
        val found = MeasuredFloors.covering(resultsDir, jdk.feature, collector, modelSlugs, warmthSlugs).lastOrNull()
        println(
            found?.let { "floor: ${it.path} measured $what already" }
                ?: "floor: no whole floor in ${resultsDir.path} measured $what: measuring it",
        )
        return found
    }

    private fun firstManifest(
        jdks: List<Provenance.Jdk>,
        runtimes: Map<String, JdkRuntime>,
        flags: Map<String, List<String>>,
        heapMb: Int,
    ) = FloorManifest(
        provenance = provenance(),
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

// The floor JVMs are stopped by Children's shutdown hook as this JVM exits.
fun main(args: Array<String>): Unit = FloorCommand().main(args)
