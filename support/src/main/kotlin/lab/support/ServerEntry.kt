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
}
