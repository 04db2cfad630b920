package lab.jettycoroutinevirtual

import com.github.ajalt.clikt.core.main
import lab.jetty.CoroutineModel
import lab.jetty.JettyLabServer
import lab.support.ServerCommand
import lab.support.ServerConfig

/**
 * Coroutines on virtual threads: jetty-coroutine-server with its coroutines dispatched to a new virtual thread at
 * every resumption instead of to Dispatchers.Default ([CoroutineModel.onVirtualThreads]). Beside its two parents,
 * jetty-coroutine-server and jetty-virtual-server, it answers whether a coroutine server gains or loses by running
 * on virtual threads.
 */
private class JettyCoroutineVirtualCommand : ServerCommand(engine = JettyLabServer.ENGINE, model = "coroutine-virtual") {
    override fun serve(config: ServerConfig) = JettyLabServer(config, CoroutineModel.onVirtualThreads()).serveUntilStopped()
}

fun main(args: Array<String>) = JettyCoroutineVirtualCommand().main(args)
