package lab.jettyvirtual

import com.github.ajalt.clikt.core.main
import lab.jetty.JettyLabServer
import lab.jetty.ThreadModel
import lab.support.ServerCommand
import lab.support.ServerConfig
import java.util.concurrent.Executors

/**
 * The virtual-thread model: a new virtual thread for every task, without a bound. Blocking
 * parks the virtual thread and frees its carrier; the JDK's scheduler runs all of them on
 * one carrier thread per core.
 */
private class JettyVirtualCommand : ServerCommand(engine = JettyLabServer.ENGINE, model = "virtual") {
    override fun serve(config: ServerConfig) {
        val virtualThreads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("vthread-", 0).factory())
        JettyLabServer(config, ThreadModel(virtualThreads)).serveUntilStopped()
    }
}

fun main(args: Array<String>) = JettyVirtualCommand().main(args)
