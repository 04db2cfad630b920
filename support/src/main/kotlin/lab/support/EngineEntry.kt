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
    /** Changes the lab does not make, but could make, in place of one of [changes] or beside them all: an arm runs one to compare. */
    val alternatives: List<Alternative> = emptyList(),
) {
    /** One change: its [kind] is [PATCH] (the lab's code in place of or around the engine's) or [SETTING] (a public option off its default). */
    @Serializable
    data class Change(val name: String, val kind: String, val what: String, val why: String)

    /**
     * A change the servers run only when asked (`--alternatives`): in place of the change [insteadOf] names, or, when it names
     * none, beside every change (another choice the engine offers, such as the downstream client's own engine).
     */
    @Serializable
    data class Alternative(val name: String, val kind: String, val what: String, val why: String, val insteadOf: String? = null)

    companion object {
        const val PATCH = "patch"
        const val SETTING = "setting"
        val KINDS = listOf(PATCH, SETTING)
    }
}
