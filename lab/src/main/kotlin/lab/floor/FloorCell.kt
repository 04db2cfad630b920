package lab.floor

import kotlinx.serialization.Serializable
import lab.floor.tasks.Model
import lab.floor.tasks.Warmth
import lab.support.Provenance

/**
 * One JVM of a `make floor` run: one JDK, model, call depth, warmth and repeat. [order] is its place in
 * the run (1 first), which the plan shuffles within each repeat so that a drift of the host over
 * the run does not land on one model.
 */
data class FloorCell(val jdk: Provenance.Jdk, val model: Model, val depth: Int, val warmth: Warmth, val repeat: Int, val order: Int) {
    /** How the progress lines and the manifest name it. */
    val label: String get() = "JDK ${jdk.feature} ${model.slug} depth $depth ${warmth.slug} repeat $repeat"

    /** Its log, under the run folder: the child's JSON lines and anything else it printed. */
    val logName: String get() = "logs/jdk${jdk.feature}-${model.slug}-depth$depth-${warmth.slug}-repeat$repeat.log"

    /** What became of it, for the manifest: [Outcome.OK] with every step measured, or [Outcome.FAILED] and why. */
    @Serializable
    data class Outcome(
        val order: Int,
        val jdk: Int,
        val jdkVersion: String,
        val model: String,
        val depth: Int,
        val warmth: String,
        val repeat: Int,
        val status: String,
        val stepsMeasured: Int,
        val seconds: Double,
        val log: String,
        val reason: String? = null,
    ) {
        companion object {
            const val OK = "ok"
            const val FAILED = "failed"
        }
    }

    fun outcome(stepsMeasured: Int, seconds: Double, reason: String?) = Outcome(
        order, jdk.feature, jdk.version, model.slug, depth, warmth.slug, repeat,
        if (reason == null) Outcome.OK else Outcome.FAILED, stepsMeasured, seconds, logName, reason,
    )
}
