package lab.floor.tasks

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.parameters.options.NullableOption
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.options.validate
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.restrictTo

/** `--steps 0,2000,...`: the tasks parked at each step, ascending; the floor program's and `make floor`'s, checked alike. */
fun CliktCommand.stepsOption() = option("--steps", help = "tasks parked at each step, ascending, comma-separated")
    .int().split(",").default(FloorDefaults.STEPS)
    .validate { steps ->
        val most = FloorDefaults.MAX_TASKS
        require(steps.all { it in 0..most } && steps.zipWithNext().all { (a, b) -> b > a }) {
            "must be ascending task counts from 0 to $most, got ${steps.joinToString(",")}"
        }
    }

/** A model by its slug; an unknown one is refused with the list to choose from. */
fun NullableOption<String, String>.model() = convert { slug -> runCatching { Model.of(slug) }.getOrElse { fail(it.message!!) } }

/** `--models coroutine,virtual`: the models to run, all of them by default. */
fun CliktCommand.modelsOption() = option("--models", help = "comma-separated, from: ${Model.slugs.joinToString()}")
    .model().split(",").default(Model.entries)

/** `--warmths cold,warm`: whether each JVM's tasks park cold, warm, or both in JVMs of their own ([Warmth]); both by default. */
fun CliktCommand.warmthsOption() = option("--warmths", help = "comma-separated, from: ${Warmth.slugs.joinToString()}")
    .convert { slug -> runCatching { Warmth.of(slug) }.getOrElse { fail(it.message!!) } }.split(",").default(Warmth.entries)

/** `--ballast-bytes B`, hidden: the measurement's check against a known truth ([TaskShape.ballastBytes]), not an experiment. */
fun CliktCommand.ballastOption() = option("--ballast-bytes", hidden = true, help = "a live byte array each task holds")
    .int().restrictTo(0..MAX_BALLAST_BYTES).default(0)

private const val MAX_BALLAST_BYTES = 64 shl 20
