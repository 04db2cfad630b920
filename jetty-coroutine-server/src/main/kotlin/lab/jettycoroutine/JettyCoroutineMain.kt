package lab.jettycoroutine

import com.github.ajalt.clikt.core.main
import lab.jetty.CoroutineModel
import lab.jetty.JettyLabServer
import lab.support.ServerCommand
import lab.support.ServerConfig

/**
 * The coroutine model on Jetty 12: the same server, connector, WebSocket container, downstream
 * client and handler core as jetty-virtual-server and jetty-platform-server, with every request and
 * WebSocket a coroutine instead of a thread. Beside the Ktor server, it separates what the
 * model costs from what the engine costs.
 */
private class JettyCoroutineCommand : ServerCommand(engine = JettyLabServer.ENGINE, model = "coroutine") {
    override fun serve(config: ServerConfig) = JettyLabServer(config, CoroutineModel.onDefaultDispatcher()).serveUntilStopped()
}

fun main(args: Array<String>) = JettyCoroutineCommand().main(args)
