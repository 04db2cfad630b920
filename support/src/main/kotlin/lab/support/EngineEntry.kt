package lab.support

import kotlinx.serialization.Serializable

/**
 * An engine as `servers.json` declares it: its [label], and every change the lab made to it as
 * shipped. Every server on the engine runs with all of them, so a figure of the engine effect
 * compares engines as changed here; each run's manifest records them, and its report shows them.
 */
@Serializable
data class EngineEntry(
    val label: String,
    val changes: List<Change>,
    /** Changes the lab does not make, but could make in place of one of [changes]: an arm runs one to compare the two. */
    val alternatives: List<Alternative> = emptyList(),
) {
    /** One change: its [kind] is [PATCH] (the lab's code in place of or around the engine's) or [SETTING] (a public option off its default). */
    @Serializable
    data class Change(val name: String, val kind: String, val what: String, val why: String)

    /** A change the servers run only when asked (`--alternatives`), and then in place of the change [insteadOf] names. */
    @Serializable
    data class Alternative(val name: String, val kind: String, val insteadOf: String, val what: String, val why: String)

    companion object {
        const val PATCH = "patch"
        const val SETTING = "setting"
        val KINDS = listOf(PATCH, SETTING)
    }
}
