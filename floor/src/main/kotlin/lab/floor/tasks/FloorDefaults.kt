package lab.floor.tasks

import kotlinx.serialization.Serializable

/**
 * The defaults of `make floor`, declared once: the floor program and its orchestrator
 * (lab.floor.FloorMain) both read them.
 */
object FloorDefaults {
    /**
     * Tasks parked at each step, the same for every model, so their lines are fitted over the same
     * points. 8,000 platform threads are well inside this host's `kernel.pid_max` (32,768), and
     * few enough that starting them keeps the default run within minutes (docs/JOURNAL.md,
     * "Figures that were in the harness's comments").
     */
    val STEPS = listOf(0, 2_000, 4_000, 6_000, 8_000)

    /** A task parked directly, and one parked 20 frames deep. */
    val DEPTHS = listOf(0, 20)

    /**
     * The park-and-release rounds before the first step, so the classes are loaded and the JIT has
     * compiled the task's whole path, the wake-up included: a warm server's tasks park in compiled
     * frames, and a virtual thread copies its frames to the heap as they are: its stack chunk is
     * several times larger in interpreted frames than in C2's, and C2 got there only after tens of
     * thousands of parks (docs/EXPERIMENTS.md, "Each model's floor"). One round is not enough however
     * large: the first wake-ups take branches the parks never did, the compiled code is thrown away
     * (unstable_if), and the next tasks park in the interpreter until it is compiled again. So five
     * rounds of 10,000. A platform thread's frames stay in its own stack, whose resident pages
     * hardly depend on them, and its threads are slow to start: one round of 1,000.
     */
    fun warmup(model: Model): Warmup = when (model) {
        Model.PLATFORM -> Warmup(rounds = 1, tasks = 1_000)
        else -> Warmup(rounds = 5, tasks = 10_000)
    }

    @Serializable
    data class Warmup(val rounds: Int, val tasks: Int)

    /** How long a step may take to park all its tasks before the run gives up on it. */
    const val PARK_TIMEOUT_SECONDS = 120L

    /** The largest step the program takes; platform threads meet the host's limits far earlier. */
    const val MAX_TASKS = 1_000_000
}
