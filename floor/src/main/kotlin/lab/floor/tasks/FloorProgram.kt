package lab.floor.tasks

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.required
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import kotlinx.serialization.json.Json
import lab.support.LabMain

/**
 * The program `make floor` measures, one model and depth per JVM (so no model's leftovers, JIT
 * state or thread arenas count against another): it parks tasks step by step and, once each
 * step is fully parked, prints one JSON line ([StepMeasurement]) on stdout. Run it by hand with
 * the lab's flags and NMT on:
 *
 * ```sh
 * java -Xms2048m -Xmx2048m -XX:+UseZGC -XX:NativeMemoryTracking=summary -jar floor/target/floor.jar \
 *   --model virtual --depth 20 --steps 0,2500,5000
 * ```
 */
private class FloorCommand : CliktCommand(name = "floor") {
    override fun help(context: Context) = "Parks tasks of one concurrency model in steps and measures the JVM at each step."

    private val model by option("--model", help = "how each task waits: ${Model.slugs.joinToString()}").model().required()
    private val depth by option("--depth", help = "frames deep each task parks, each with live locals")
        .int().restrictTo(TaskShape.DEPTHS).default(0)
    private val steps by stepsOption()
    private val warmupRounds by option("--warmup-rounds", help = "park-and-release rounds before the first step (default 5; platform 1)")
        .int().restrictTo(0..100)
    private val warmupTasks by option("--warmup-tasks", help = "tasks a warm-up round parks (default 10000; platform 1000)")
        .int().restrictTo(0..FloorDefaults.MAX_TASKS)
    private val parkTimeoutSeconds by option("--park-timeout-seconds", help = "how long a step may take to park its tasks")
        .long().restrictTo(1L..3_600L).default(FloorDefaults.PARK_TIMEOUT_SECONDS)
    private val ballastBytes by ballastOption()

    override fun run() {
        val shape = TaskShape(depth, ballastBytes)
        val timeoutMs = parkTimeoutSeconds * 1000
        val warmup = FloorDefaults.warmup(model)
        val rounds = warmupRounds ?: warmup.rounds
        repeat(rounds) {
            ParkedTasks.of(model, shape).apply { parkUntil(warmupTasks ?: warmup.tasks, timeoutMs) }.release()
        }
        System.err.println("$WARMED_UP $rounds round(s) of ${warmupTasks ?: warmup.tasks} ${model.slug} tasks")
        // One measurement thrown away: the first one loads and caches what measuring needs (the MBean
        // server, the JSON encoder), which would otherwise land in the first step's heap.
        JSON.encodeToString(StepMeasurement.serializer(), StepMeasurement.take(model, shape, tasks = 0))
        val tasks = ParkedTasks.of(model, shape)
        for (step in steps) {
            tasks.parkUntil(step, timeoutMs)
            println(JSON.encodeToString(StepMeasurement.serializer(), StepMeasurement.take(model, shape, step)))
            System.out.flush()
        }
        val sum = tasks.release()
        System.err.println("released ${tasks.parked} ${model.slug} tasks (checksum $sum)")
    }

    companion object {
        val JSON = Json { encodeDefaults = true }

        /** How its log says what warm-up it ran, before the first step. */
        const val WARMED_UP = "warmed up with"
    }
}

fun main(args: Array<String>): Unit = LabMain.exit("floor", FloorCommand(), args, failure = { it is IllegalStateException })
