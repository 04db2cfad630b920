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
    /** How a task waits: one of [Catalogue.MODELS]. */
    val model: String,
    val traits: Traits,
    /** How plots and tables name the server to a reader. */
    val label: String,
    /** A matplotlib colour, the same in every plot. */
    val colour: String,
    /**
     * The lab's changes to its engine ([EngineEntry.changes]) this server runs without (`--as-shipped`): empty as servers.json
     * declares a server, and for an arm made by [without] the changes left out, so that one run can hold a server beside itself
     * as shipped. Written to a manifest only when not empty.
     */
    val asShipped: List<String> = emptyList(),
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

    /** The server's own options for running it as this entry: `--as-shipped` with the changes an arm leaves out. */
    val asShippedArgs: List<String> get() = if (asShipped.isEmpty()) emptyList() else listOf("--as-shipped", asShipped.joinToString(","))

    /**
     * This server without some of the lab's changes to its engine: an arm, named `server-without-a-and-b` (the changes in
     * the order given) and labelled so in plots. Its engine, model and traits are the server's; [armOf] names it.
     */
    fun without(changes: List<String>, everyChange: Boolean): ServerEntry {
        require(armOf == null) { "$name is an arm already" }
        if (changes.isEmpty()) return this
        return copy(
            name = "$name-without-${changes.joinToString("-and-")}",
            formerNames = emptyList(),
            label = if (everyChange) "$label, as shipped" else "$label, without ${changes.joinToString(", ")}",
            asShipped = changes,
            armOf = name,
        )
    }
}
