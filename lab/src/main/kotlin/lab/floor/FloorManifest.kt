package lab.floor

import kotlinx.serialization.Serializable
import lab.experiment.ExperimentManifest
import lab.floor.tasks.FloorDefaults
import lab.support.Collector
import lab.support.Provenance

/**
 * `manifest.json` of a `make floor` run, beside its `floor.csv`. The floor runs on several JDKs,
 * so [Provenance.jdk] is the one that ran the harness, as in the pinning audit; [jdks] are those
 * the tasks were parked on, and [jvmFlags] each one's exact flags (they differ: JDK 21 has to be
 * told to use generational ZGC).
 */
@Serializable
data class FloorManifest(
    override val provenance: Provenance,
    /** The version of run-folder.json that floor.csv was written in. */
    val runFolderFormat: Int,
    val jdks: List<Provenance.Jdk>,
    /** By JDK feature version: what each JDK says of itself (its vendor where the release file does not). */
    val jdkRuntimes: Map<String, JdkRuntime>,
    /** By JDK feature version ("21", "25"): every flag the floor JVMs started with, before `-jar`. */
    val jvmFlags: Map<String, List<String>>,
    /** Every floor JVM's garbage collector, as [lab.support.Collector] names it: a bench run's floor is one of its collector. */
    val collector: String = Collector.ZGC.slug,
    val settings: Settings,
    /** What each model's task waits on, for the report. */
    val models: Map<String, String>,
    /** Every JVM that ended, in the order they ran. */
    val cells: List<FloorCell.Outcome> = emptyList(),
    /** One sentence for each JVM that failed; its steps are not in floor.csv. */
    override val problems: List<String> = emptyList(),
) : ExperimentManifest {
    @Serializable
    data class Settings(
        val models: List<String>,
        val depths: List<Int>,
        /** Cold, warm or both ([lab.floor.tasks.Warmth]): warm parks after [warmup]'s rounds, cold after none. */
        val warmths: List<String>,
        val steps: List<Int>,
        val repeats: Int,
        /** The bench's heap (the `local` profile's), so the floor is measured on the JVM the servers run on. */
        val heapMb: Int,
        /** Park-and-release rounds before the first step, by model (FloorDefaults.warmup says why). */
        val warmup: Map<String, FloorDefaults.Warmup>,
        val liveLocalsPerFrame: Int,
        /** 0 but in the measurement's own test: each task then holds a live byte array of this size. */
        val ballastBytes: Int,
        val seed: Long,
        val cellTimeoutSeconds: Long,
    )
}
