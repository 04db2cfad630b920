package lab.bench.load

import lab.bench.collect.RunClock

/**
 * One step's attack: its measured phase's name, endpoint and rate, from its settling phase's start to its end, in seconds of
 * load. A search slot's is [searched], its rate 0 until chosen.
 */
data class VegetaAttack(
    val step: String,
    val endpoint: String,
    val ratePerSecond: Int,
    val fromSeconds: Int,
    val toSeconds: Int,
    val searched: Boolean = false,
) {
    companion object {
        /**
         * Each vegeta step of [timeline] as one attack, in the order they run: the steady /json phase where vegeta offers it, from
         * its own start (k6's warm-up ramps to its rate before it), and the curve's ladder steps and search slots, each from its
         * settling phase's start to its measured phase's end.
         */
        fun allOf(timeline: List<LoadPhase>): List<VegetaAttack> {
            // A curve step's settling phase is the one before it.
            val settles = timeline.zipWithNext().associate { (settle, step) -> step.name to settle }
            val steps = timeline.filter { phase ->
                val endpoint = phase.endpoint
                val ladder = endpoint != null && phase.name == LoadTimeline.curveStep(endpoint, phase.ratePerSecond)
                phase.generator == Profile.VEGETA && (ladder || steady(phase) || LoadTimeline.searchSlot(phase) != null)
            }
            return steps.map { step ->
                val settle = settles[step.name]?.takeUnless { steady(step) }
                VegetaAttack(
                    step.name,
                    step.endpoint!!,
                    step.ratePerSecond,
                    settle?.fromSeconds ?: step.fromSeconds,
                    step.toSeconds,
                    step.searched,
                )
            }
        }

        /** An endpoint's steady phase, named for the endpoint (LoadTimeline.of), at a rate held, not ramped. */
        private fun steady(phase: LoadPhase): Boolean = phase.name == phase.endpoint && phase.ratePerSecond > 0 && !phase.ramp
    }
}

/**
 * What each planned attack offers when the pass's clock reaches it: a ladder step its own rate, unless the search has stopped
 * the ladder past the server's limit ([CurveSearch.offers]); a search slot the rate [search] chooses, the pass's timeline named
 * for it ([PassTimeline.offer]). Without a search (no wire to guide it) a slot offers nothing, and [note] says so once a pass.
 */
class VegetaAttackChoice(
    private val clock: RunClock,
    private val search: CurveSearch?,
    private val note: (String) -> Unit,
) {
    private var unguidedNoted = false

    /** The attack to run for [planned], or null to offer nothing in its time. */
    fun offered(planned: VegetaAttack): VegetaAttack? {
        val phase = clock.timeline.named(planned.step) ?: return planned.takeUnless { it.searched }
        val search = search
        return when {
            search == null -> if (planned.searched) null.also { noteUnguided() } else planned
            planned.searched -> search.rateFor(phase)?.let { rate ->
                planned.copy(step = clock.timeline.offer(phase, rate).name, ratePerSecond = rate)
            }
            search.offers(phase) -> planned
            else -> null
        }
    }

    private fun noteUnguided() {
        if (unguidedNoted) return
        unguidedNoted = true
        note("no wire to guide the curve's search: its slots offered nothing")
    }
}
