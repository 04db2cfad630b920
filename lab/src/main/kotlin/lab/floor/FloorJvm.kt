package lab.floor

import kotlinx.serialization.SerializationException
import kotlinx.serialization.json.Json
import lab.floor.tasks.StepMeasurement
import lab.support.Children
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * Runs one [FloorCell] in a fresh JVM of `floor/target/floor.jar` ([command]), through
 * [Children] so that Ctrl-C leaves none behind, and follows its log: each step's JSON line is
 * passed to [onStep] as it appears. A JVM that exits with an error, prints fewer steps than
 * asked, or overruns [timeoutSeconds] is a [Result] with a reason, never an exception.
 */
class FloorJvm(private val command: List<String>, private val log: File, private val expectedSteps: Int, private val timeoutSeconds: Long) {
    data class Result(val steps: List<StepMeasurement>, val seconds: Double, val failure: String?)

    fun run(onStep: (StepMeasurement) -> Unit): Result {
        log.parentFile.mkdirs()
        val startNs = System.nanoTime()
        val process = Children.start(command, log)
        val deadlineNs = startNs + TimeUnit.SECONDS.toNanos(timeoutSeconds)
        val steps = mutableListOf<StepMeasurement>()
        var failure: String? = null
        fun follow() {
            // Whole lines only: the last one may still be being written.
            val lines = log.readText().substringBeforeLast('\n', "").lines()
            val found = runCatching { stepsIn(lines) }.getOrElse { e ->
                failure = failure ?: "a step line it printed is not a step: ${e.message}"
                emptyList()
            }
            found.drop(steps.size).forEach { steps += it.also(onStep) }
        }
        while (!process.waitFor(POLL_MS, TimeUnit.MILLISECONDS)) {
            follow()
            if (System.nanoTime() > deadlineNs) {
                Children.stop(process, graceSeconds = 5)
                failure = failure ?: "still running after $timeoutSeconds s, stopped"
                break
            }
        }
        follow()
        val seconds = (System.nanoTime() - startNs) / 1e9
        val exit = process.exitValue()
        failure = failure
            ?: if (exit != 0) {
                "exited with code $exit"
            } else {
                null
                    ?: if (steps.size != expectedSteps) "measured ${steps.size} of $expectedSteps steps" else null
            }
        return Result(steps, seconds, failure?.let { "$it; see ${log.name}" })
    }

    private companion object {
        const val POLL_MS = 250L
        val JSON = Json { ignoreUnknownKeys = false }

        /** The program's stdout is its JSON lines, one per step; anything else in the log (a JVM warning, its stderr) is not. */
        fun stepsIn(lines: List<String>): List<StepMeasurement> = lines.filter { it.startsWith("{") }.map { line ->
            try {
                JSON.decodeFromString(StepMeasurement.serializer(), line)
            } catch (e: SerializationException) {
                throw IllegalStateException(line.take(200), e)
            } catch (e: IllegalArgumentException) {
                throw IllegalStateException(line.take(200), e)
            }
        }
    }
}
