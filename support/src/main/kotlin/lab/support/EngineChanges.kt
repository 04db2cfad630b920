package lab.support

/**
 * Which of the lab's changes to its engine ([EngineEntry.changes], declared in servers.json) a
 * server runs with: every one, unless `--as-shipped` names some to leave out, so that what a
 * change costs can be measured against the engine as shipped. A change's code asks [on] before
 * it installs itself; a name servers.json does not declare for the engine is refused, there
 * and on the command line.
 */
class EngineChanges(private val engine: String, val asShipped: Set<String> = emptySet()) {
    private val declared: List<String> = Catalogue.engines[engine]?.changes?.map { it.name }.orEmpty()

    init {
        asShipped.firstOrNull { it !in declared }?.let {
            throw IllegalArgumentException(
                "$engine has no change called $it; servers.json declares ${declared.joinToString().ifEmpty {
                    "none"
                }}",
            )
        }
    }

    /** Whether the server runs with [change]; false if `--as-shipped` left it out. */
    fun on(change: String): Boolean {
        require(change in declared) { "servers.json declares no change $change for $engine" }
        return change !in asShipped
    }

    companion object {
        /** `--as-shipped`'s word for every change of the engine. */
        const val ALL = "all"

        /** The changes `--as-shipped` names: a comma-separated list, or [ALL]. */
        fun parse(engine: String, names: String): EngineChanges {
            val listed = names.split(',').map { it.trim() }.filter { it.isNotEmpty() }.toSet()
            // Checked as listed first, so a misspelt name beside `all` is refused too.
            val named = EngineChanges(engine, listed - ALL)
            return if (ALL in listed) EngineChanges(engine, named.declared.toSet()) else named
        }
    }
}
