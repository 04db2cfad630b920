package lab.support

/**
 * Which of the lab's changes to its engine ([EngineEntry.changes], declared in servers.json) a
 * server runs with: every one, unless `--as-shipped` names some to leave out, so that what a
 * change costs can be measured against the engine as shipped. An alternative
 * ([EngineEntry.alternatives]) runs only when `--alternatives` names it, and then in place of
 * the change it is instead of (or beside them all, if it is instead of none), so that the two can be compared. A change's code asks [on]
 * before it installs itself; a name servers.json does not declare for the engine is refused,
 * there and on the command line.
 */
class EngineChanges(
    private val engine: String,
    asShipped: Set<String> = emptySet(),
    val alternatives: Set<String> = emptySet(),
) {
    private val entry: EngineEntry? = Catalogue.engines[engine]
    private val declared: List<String> = entry?.changes?.map { it.name }.orEmpty()
    private val declaredAlternatives: Map<String, String?> = entry?.alternatives?.associate { it.name to it.insteadOf }.orEmpty()

    /** The changes left out: those named, and each one an alternative runs in place of. */
    val asShipped: Set<String> = asShipped + alternatives.mapNotNull { declaredAlternatives[it] }

    init {
        asShipped.firstOrNull { it !in declared }?.let { throw IllegalArgumentException(unknown(it)) }
        alternatives.firstOrNull { it !in declaredAlternatives }?.let { throw IllegalArgumentException(unknown(it)) }
    }

    private fun unknown(name: String): String {
        val known = (declared + declaredAlternatives.keys).joinToString().ifEmpty { "none" }
        return "$engine has no change called $name; servers.json declares $known"
    }

    /** Whether the server runs with [change]: a change unless `--as-shipped` left it out, an alternative if `--alternatives` named it. */
    fun on(change: String): Boolean {
        if (change in declaredAlternatives) return change in alternatives
        require(change in declared) { "servers.json declares no change $change for $engine" }
        return change !in asShipped
    }

    companion object {
        /** `--as-shipped`'s word for every change of the engine. */
        const val ALL = "all"

        /**
         * The changes a comma-separated list names, or [ALL]: each change named is left out, each alternative named runs
         * in place of its change.
         */
        fun parse(engine: String, names: String): EngineChanges {
            val listed = names.split(',').map { it.trim() }.filter { it.isNotEmpty() }.toSet()
            val alternativeNames = Catalogue.engines[engine]?.alternatives?.map { it.name }.orEmpty().toSet()
            // Checked as listed first, so a misspelt name beside `all` is refused too.
            val named = EngineChanges(engine, listed - ALL - alternativeNames, listed intersect alternativeNames)
            return if (ALL in listed) EngineChanges(engine, named.declared.toSet(), named.alternatives) else named
        }
    }
}
