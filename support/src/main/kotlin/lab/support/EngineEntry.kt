package lab.support

import kotlinx.serialization.Serializable

/**
 * An engine as `servers.json` declares it: its [label], and every change the lab made to it as
 * shipped. Every server on the engine runs with all of them, so a figure of the engine effect
 * compares engines as changed here; each run's manifest records them, and its report shows them.
 */
@Serializable
data class EngineEntry(val label: String, val changes: List<Change>) {
    /** One change: its [kind] is [PATCH] (the lab's code in place of or around the engine's) or [SETTING] (a public option off its default). */
    @Serializable
    data class Change(val name: String, val kind: String, val what: String, val why: String)

    companion object {
        const val PATCH = "patch"
        const val SETTING = "setting"
        val KINDS = listOf(PATCH, SETTING)
    }
}
