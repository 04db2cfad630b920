package lab.coroutine

import com.github.ajalt.clikt.core.main
import lab.handlers.ServerCommand
import lab.handlers.ServerConfig

private class CoroutineCommand : ServerCommand(model = "coroutine") {
    override fun serve(config: ServerConfig) = CoroutineServer(config).serveUntilStopped()
}

fun main(args: Array<String>) = CoroutineCommand().main(args)
