package lab.support

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.types.choice
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.handlers.DownstreamPaths
import lab.handlers.Limits
import lab.handlers.SocketBallast

/**
 * The command line every server shares, declared once so the servers take the same options
 * with the same defaults. A server adds only what is its own (the platform pool size). It
 * names its [engine] (its HTTP and WebSocket stack) and its [model] (how a task waits: one of
 * coroutine, virtual, platform), and reports both on its READY line and on `/stats`.
 */
abstract class ServerCommand(private val engine: String, private val model: String) : CliktCommand(name = "$engine-$model") {
    override fun help(context: Context) = "The lab's server on $engine, model $model: the handler contract of docs/CONFORMANCE.md."

    private val host by option("--host", help = "address to listen on").default("127.0.0.1")
    private val port by option("--port", help = "port to listen on; 0 picks a free one").int().restrictTo(0..65535).default(8080)
    private val downstreamUrl by option("--downstream-url", help = "base URL of the downstream stub that /dashboard calls")
        .default(DownstreamPaths.DEFAULT_URL)
    private val defaults = Limits()
    private val maxDelayMs by option("--max-delay-ms", help = "longest /delay and /pin wait").long().restrictTo(0..Long.MAX_VALUE)
        .default(defaults.maxDelayMs)
    private val maxCpuIterations by option("--max-cpu-iterations", help = "most /cpu rounds").int().restrictTo(1..Int.MAX_VALUE)
        .default(defaults.maxCpuIterations)
    private val maxBytes by option("--max-bytes", help = "largest /bytes body").long().restrictTo(0..Long.MAX_VALUE)
        .default(defaults.maxBytes)
    private val maxFrameBytes by option("--max-frame-bytes", help = "largest WebSocket frame; bigger ones close with 1009")
        .int().restrictTo(1..Int.MAX_VALUE).default(defaults.maxFrameBytes)
    private val downstreamTimeoutMs by option(
        "--downstream-timeout-ms",
        help = "longest a downstream call may take before /dashboard answers 504",
    ).long().restrictTo(1..Long.MAX_VALUE).default(defaults.downstreamTimeoutMs)
    private val requestHeadTimeoutMs by option(
        "--request-head-timeout-ms",
        help = "longest a request's head may take to arrive, from its first byte, before a 408 closes the connection",
    ).long().restrictTo(1..Long.MAX_VALUE).default(defaults.requestHeadTimeoutMs)
    private val socketBallastBytes by option(
        "--socket-ballast-bytes",
        help = "bytes every open WebSocket holds until it closes: the memory pipeline's known truth; 0 holds none",
    ).int().restrictTo(0..Int.MAX_VALUE).default(0)
    private val socketBallastKind by option("--socket-ballast", help = "where that ballast lives: a byte array, or a direct buffer")
        .choice(SocketBallast.Kind.entries.associateBy { it.slug }).default(SocketBallast.Kind.HEAP)
    private val futexHash by option(
        "--futex-hash",
        help = "the kernel's hash for this process's waiting threads: global (as before Linux 6.16), or the kernel's own choice",
    ).choice(FutexHash.Choice.entries.associateBy { it.slug }).default(FutexHash.Choice.GLOBAL)

    private val asShipped by option(
        "--as-shipped",
        help = "leave out these of the lab's changes to the engine (comma-separated names from servers.json's engines, or all), " +
            "to run the engine as shipped",
    ).convert { names ->
        val parsed = try {
            EngineChanges.parse(engine, names)
        } catch (e: IllegalArgumentException) {
            fail(e.message ?: "unknown change")
        }
        parsed.alternatives.firstOrNull()?.let { fail("$it is an alternative to one of the lab's changes: name it with --alternatives") }
        parsed
    }.default(EngineChanges(engine))
    private val alternatives by option(
        "--alternatives",
        help = "run these alternatives (servers.json's engines), each in place of the lab's change it is instead of, if any",
    ).split(",").default(emptyList())

    /** The most threads the server's pool may start, where it is bounded (servers.json's `boundedPool`); null where it is not. */
    protected open val poolThreadsMax: Int? get() = null

    final override fun run() {
        // Before the server starts threads of its own; the kernel moves the JVM's few (GC, JIT) across.
        val futexHashNow = FutexHash.apply(futexHash)
        val config = ServerConfig(
            engine = engine,
            model = model,
            host = host,
            port = port,
            downstreamUrl = downstreamUrl.trimEnd('/'),
            limits = Limits(maxDelayMs, maxCpuIterations, maxBytes, maxFrameBytes, downstreamTimeoutMs, requestHeadTimeoutMs),
            socketBallast = SocketBallast(socketBallastBytes, socketBallastKind),
            futexHash = futexHashNow,
            poolThreadsMax = poolThreadsMax,
            changes = try {
                EngineChanges(engine, asShipped.asShipped, alternatives.map { it.trim() }.toSet())
            } catch (e: IllegalArgumentException) {
                throw UsageError("--alternatives: ${e.message}")
            },
        )
        serve(config)
    }

    /** Starts the server, calls [ServerConfig.announceReady], and returns once it has stopped. */
    abstract fun serve(config: ServerConfig)
}

/** Everything a server is started with. */
data class ServerConfig(
    val engine: String,
    val model: String,
    val host: String,
    val port: Int,
    val downstreamUrl: String,
    val limits: Limits,
    /** What each open WebSocket holds; none unless a test of the memory pipeline asks. */
    val socketBallast: SocketBallast = SocketBallast.NONE,
    /** The futex hash the process has ([FutexHash.describe]), on its READY line as `futexHash`. */
    val futexHash: String = FutexHash.describe(),
    /** Which of the lab's changes to the engine it runs with; those left out are on its READY line as `asShipped`. */
    val changes: EngineChanges = EngineChanges(engine),
    /**
     * The most threads its bounded pool may start, on its READY line as `poolThreadsMax`: past it the server refuses work, so it is
     * the server's own limit on threads, beside the host's. Null for a server whose pool has no bound.
     */
    val poolThreadsMax: Int? = null,
) {
    /** Prints the server's [ReadyLine] once it accepts connections on [boundPort]. */
    fun announceReady(boundPort: Int) {
        val shipped = listOf(AS_SHIPPED to changes.asShipped, ALTERNATIVES to changes.alternatives)
            .filter { it.second.isNotEmpty() }.map { (fact, names) -> fact to names.sorted().joinToString(",") }
        val bound = listOfNotNull(poolThreadsMax?.let { POOL_THREADS_MAX to it })
        val facts = listOf("engine" to engine, "jdk" to Runtime.version(), FUTEX_HASH to futexHash) + bound + shipped
        println(ReadyLine.format(model, "http://$host:$boundPort", *facts.toTypedArray()))
        System.out.flush()
    }

    companion object {
        /** How long a server may take to stop on SIGTERM before open work is cut off: inside the contract's 5 s. */
        const val SHUTDOWN_GRACE_MS = 3_000L

        /** The READY line's fact naming the process's futex hash ([FutexHash]). */
        const val FUTEX_HASH = "futexHash"

        /** The READY line's fact giving the most threads a bounded pool may start ([poolThreadsMax]); absent where none is bounded. */
        const val POOL_THREADS_MAX = "poolThreadsMax"

        /** The READY line's fact naming the engine changes left out (`--as-shipped`); absent when none was. */
        const val AS_SHIPPED = "asShipped"

        /** The READY line's fact naming the alternatives run (`--alternatives`); absent when none was. */
        const val ALTERNATIVES = "alternatives"
    }
}
