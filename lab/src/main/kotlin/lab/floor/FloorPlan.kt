package lab.floor

import lab.floor.tasks.Model
import lab.floor.tasks.Warmth
import lab.support.Provenance
import kotlin.random.Random

/**
 * The order of a run's JVMs: repeat by repeat (every cell once before any twice), each repeat's
 * cells (JDK x model x depth x warmth) in a random order of its own, drawn from [seed], which the manifest
 * records. A host that slows down over the run (other work, heat) then spreads over every model
 * rather than landing on whichever ran last.
 */
object FloorPlan {
    fun cells(
        jdks: List<Provenance.Jdk>,
        models: List<Model>,
        depths: List<Int>,
        warmths: List<Warmth>,
        repeats: Int,
        seed: Long,
    ): List<FloorCell> {
        val random = Random(seed)
        val oneRepeat = jdks.flatMap { jdk ->
            models.flatMap { model -> depths.flatMap { depth -> warmths.map { warmth -> FloorCell(jdk, model, depth, warmth, 0, 0) } } }
        }
        return (1..repeats).flatMap { repeat -> oneRepeat.shuffled(random).map { it.copy(repeat = repeat) } }
            .mapIndexed { i, cell -> cell.copy(order = i + 1) }
    }
}
