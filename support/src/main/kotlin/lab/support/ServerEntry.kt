package lab.support

import kotlinx.serialization.Serializable
import java.io.File

/**
 * One server as `servers.json` declares it: what it is (an [engine] running a [model], and
 * its [traits]) and where its jar is. Code asks an entry what a server is; it never tests a
 * server's name.
 */
@Serializable
data class ServerEntry(
    val name: String,
    /** What run folders made before the rename of 2026-11-29 call it: coroutine, vthread and platform named the model, not the engine. */
    val formerNames: List<String>,
    val module: String,
    /** The runnable jar, relative to the repository root. */
    val jar: String,
    /** The HTTP and WebSocket stack: `ktor-netty` or `jetty`. */
    val engine: String,
    /** How a task waits: one of [Catalogue.models]. */
    val model: String,
    val traits: Traits,
    /** How plots and tables name the server to a reader. */
    val label: String,
    /** A matplotlib colour, the same in every plot (an arm's is its server's here; the analysis gives it one of its own). */
    val colour: String,
    /**
     * The lab's changes to its engine ([EngineEntry.changes]) this server runs without (`--as-shipped`): empty as servers.json
     * declares a server, and for an arm made by [arm] the changes left out (those its alternatives replace among them), so that one run can hold a server beside itself
     * as shipped. Written to a manifest only when not empty.
     */
    val asShipped: List<String> = emptyList(),
    /** The alternatives ([EngineEntry.alternatives]) an arm runs, each in place of a change of [asShipped]. */
    val alternatives: List<String> = emptyList(),
    /** The catalogue server an arm was made from; null for the server itself. */
    val armOf: String? = null,
) {
    /** What the tests and tools need to know of a server beyond its engine and model; each is held to the server by a test. */
    @Serializable
    data class Traits(
        /** An idle WebSocket holds one OS thread (ThreadModelTest). */
        val threadPerSocket: Boolean,
        /** Handlers run on virtual threads, so a blocking call can pin a carrier (VirtualThreadPinningTest). */
        val canPin: Boolean,
        /** Threads come from a bounded pool (`--threads`); an exhausted pool answers 503, or 1013 on a socket (PlatformPoolTest). */
        val boundedPool: Boolean,
    )

    fun jarIn(repo: File): File = File(repo, jar)

    /** The most threads its pool may start, as `--threads`, for a server whose threads come from a bounded pool; none for another. */
    fun poolArguments(threads: Int): List<String> = if (traits.boundedPool) listOf("--threads", "$threads") else emptyList()

    /**
     * `-jar`, the server's jar and [options] (`--port 0`, `--downstream-url ...`), then this entry's own [asShippedArgs].
     * Every harness starts a server through this, so none can forget the arm's arguments and run its server instead.
     */
    fun jarCommand(repo: File, options: List<String>): List<String> =
        listOf("-jar", jarIn(repo).absolutePath) + options + asShippedArgs

    /** The server's own options for running it as this entry: the changes an arm leaves out, and the alternatives it runs. */
    val asShippedArgs: List<String>
        get() = listOf("--as-shipped" to asShipped, "--alternatives" to alternatives)
            .filter { it.second.isNotEmpty() }
            .flatMap { (option, names) -> listOf(option, names.joinToString(",")) }

    /**
     * This server without some of the lab's changes to its engine ([leftOut]), or with an alternative in place of one
     * ([alternatives], alternative to the change it replaces, or to none): an arm. It is named `server-without-a-and-b-with-c` (a change
     * an alternative replaces is not named twice) and labelled so in plots; its engine, model and traits are the server's,
     * and [armOf] names it.
     */
    fun arm(leftOut: List<String>, alternatives: Map<String, String?>, everyChange: Boolean): ServerEntry {
        require(armOf == null) { "$name is an arm already" }
        val without = leftOut - alternatives.values.filterNotNull().toSet()
        if (without.isEmpty() && alternatives.isEmpty()) return this
        val named = listOfNotNull(
            without.takeIf { it.isNotEmpty() }?.let { "-without-" + it.joinToString("-and-") },
            alternatives.keys.takeIf { it.isNotEmpty() }?.let { "-with-" + it.joinToString("-and-") },
        )
        val said = listOfNotNull(
            if (everyChange) "as shipped" else without.takeIf { it.isNotEmpty() }?.let { "without " + it.joinToString(", ") },
            alternatives.takeIf { it.isNotEmpty() }?.entries?.joinToString(", ") { (alternative, replaced) ->
                replaced?.let { "$alternative instead of $it" } ?: alternative
            }?.let { "with $it" },
        )
        return copy(
            name = name + named.joinToString(""),
            formerNames = emptyList(),
            label = "$label, ${said.joinToString(", ")}",
            asShipped = leftOut,
            alternatives = alternatives.keys.toList(),
            armOf = name,
        )
    }
}
