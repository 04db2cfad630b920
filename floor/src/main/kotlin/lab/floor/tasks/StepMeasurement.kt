package lab.floor.tasks

import kotlinx.serialization.Serializable
import lab.support.ProcView

/**
 * One step of a floor run, as its JSON line says it: [tasks] parked, then, in this order, a full
 * GC with the live heap ([ClassHistogram]), NMT's thread figures, and the process as /proc shows
 * it. Facts only: the slopes are the analysis's.
 */
@Serializable
data class StepMeasurement(
    val model: String,
    val depth: Int,
    val ballastBytes: Int,
    val tasks: Int,
    val liveHeapBytes: Long,
    val rssBytes: Long,
    val pssBytes: Long,
    val nmtThreadCommittedBytes: Long,
    val nmtStackCommittedBytes: Long,
    /** The process's OS threads, from /proc (the JVM's own included). */
    val threads: Int,
) {
    companion object {
        fun take(model: Model, shape: TaskShape, tasks: Int): StepMeasurement {
            val liveHeapBytes = ClassHistogram.liveBytes()
            val nmt = NmtThreads.read()
            val memory = ProcView.self().memory() ?: throw IllegalStateException("cannot read /proc/self")
            return StepMeasurement(
                model = model.slug,
                depth = shape.depth,
                ballastBytes = shape.ballastBytes,
                tasks = tasks,
                liveHeapBytes = liveHeapBytes,
                rssBytes = memory.rssBytes,
                pssBytes = memory.pssBytes,
                nmtThreadCommittedBytes = nmt.committedBytes,
                nmtStackCommittedBytes = nmt.stackCommittedBytes,
                threads = memory.threads,
            )
        }
    }
}
