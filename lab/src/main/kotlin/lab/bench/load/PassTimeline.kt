package lab.bench.load

/**
 * One pass's timeline as it is offered: the profile's ([LoadTimeline.of]), in which each search
 * slot takes the name of a curve step (`json-to-7500`, `json-at-7500`) once [CurveSearch] has
 * chosen its rate. The harness's clock names each second by it, so the series of a searched
 * step carry its rate's name as a ladder step's do, and the analysis reads the rate from the
 * pass's `curve-search.csv`.
 */
class PassTimeline(planned: List<LoadPhase>) {
    /** The phases and their index by name, replaced together, so that a reader never sees one without the other. */
    private class Offered(val phases: List<LoadPhase>) {
        val byName: Map<String, LoadPhase> = phases.associateBy { it.name }
    }

    @Volatile private var offered = Offered(planned)

    /** The phases as they stand: the planned ones, with every slot offered so far named for its rate. */
    val phases: List<LoadPhase> get() = offered.phases

    /**
     * The phase named [name] as it stands, or null. The wire's reader asks this for every answer (CurveSearch.answered), at
     * up to 10,000 a second, so it is a lookup rather than a scan of the timeline's hundred-odd phases.
     */
    fun named(name: String): LoadPhase? = offered.byName[name]

    /**
     * Names search slot [step] (a [LoadPhase.searched] measured phase) and its settling phase for [ratePerSecond]; returns the
     * step as named. A rate some step of the endpoint already has is refused: two steps would share a name.
     */
    @Synchronized
    fun offer(step: LoadPhase, ratePerSecond: Int): LoadPhase {
        val endpoint = requireNotNull(step.endpoint) { "${step.name} offers no endpoint" }
        require(step.searched && ratePerSecond > 0) { "${step.name} is not a search slot, or $ratePerSecond is no rate" }
        val name = LoadTimeline.curveStep(endpoint, ratePerSecond)
        require(named(name) == null) { "$name is already a step of this pass" }
        val phases = offered.phases
        val at = phases.indexOfFirst { it.name == step.name }
        require(at > 0) { "${step.name} is not in this pass's timeline" }
        val settle = phases[at - 1]
        val chosen = step.copy(name = name, ratePerSecond = ratePerSecond)
        offered = Offered(
            phases.toMutableList().apply {
                set(at - 1, settle.copy(name = LoadTimeline.curveSettle(endpoint, ratePerSecond), ratePerSecond = ratePerSecond))
                set(at, chosen)
            },
        )
        return chosen
    }
}
