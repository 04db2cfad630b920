package lab.jettyplatform

import com.github.ajalt.clikt.core.main
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.jetty.JettyLabServer
import lab.jetty.ThreadModel
import lab.support.ServerCommand
import lab.support.ServerConfig
import java.util.concurrent.SynchronousQueue
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit

/**
 * The platform-thread model: classic thread-per-task on a bounded pool of OS threads.
 *
 * The pool has no queue (a [SynchronousQueue]): a task either gets a thread now or is
 * rejected, so an exhausted pool answers 503 at once instead of hiding the limit in
 * queueing latency. Threads start on demand and end after a minute idle, so the thread
 * count tracks the load, which is what the lab watches.
 */
private class JettyPlatformCommand : ServerCommand(engine = JettyLabServer.ENGINE, model = "platform") {
    // Each idle WebSocket holds one thread, and a /dashboard request three. The bench gives the bound
    // its run needs (lab.bench.host.Preflight.poolThreads); the default is for a server started by hand.
    private val threads by option("--threads", help = "most platform threads serving requests, sockets and downstream calls")
        .int().restrictTo(1..1_000_000).default(16_000)

    override val poolThreadsMax: Int get() = threads

    override fun serve(config: ServerConfig) {
        val pool = ThreadPoolExecutor(
            0,
            threads,
            60,
            TimeUnit.SECONDS,
            SynchronousQueue(),
            Thread.ofPlatform().name("platform-", 0).factory(),
        )
        JettyLabServer(config, ThreadModel(pool)).serveUntilStopped()
    }
}

fun main(args: Array<String>) = JettyPlatformCommand().main(args)
