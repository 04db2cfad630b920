package lab.ktorcoroutine

import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.core.main
import lab.support.ServerCommand
import lab.support.ServerConfig

/** Ktor on Netty, the idiomatic Kotlin stack: handlers suspend, and each WebSocket is one coroutine. */
private class KtorCoroutineCommand : ServerCommand(engine = "ktor-netty", model = "coroutine") {
    override fun serve(config: ServerConfig) {
        val client = try {
            DownstreamHttpClient.of(config.changes, config.limits.downstreamTimeoutMs)
        } catch (e: IllegalArgumentException) {
            throw UsageError("--alternatives: ${e.message}")
        }
        CoroutineServer(config, client).serveUntilStopped()
    }
}

fun main(args: Array<String>) = KtorCoroutineCommand().main(args)
