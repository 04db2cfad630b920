package lab.stub

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.main
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import lab.support.ReadyLine

private class StubCommand : CliktCommand(name = "stub") {
    override fun help(context: Context) =
        "The downstream service /dashboard calls, with a fixed latency; /profile/fault-<kind> fails on purpose (see StubFault)."

    private val host by option("--host", help = "address to listen on").default("127.0.0.1")
    private val port by option("--port", help = "port to listen on; 0 picks a free one").int().restrictTo(0..65535).default(8090)
    private val latencyMs by option("--latency-ms", help = "how long each /profile and /metrics call takes")
        .long().restrictTo(0L..600_000L).default(20)

    override fun run() {
        val stub = StubServer(host, port, latencyMs)
        val boundPort = stub.start()
        Runtime.getRuntime().addShutdownHook(Thread { stub.close() })
        println(ReadyLine.format("stub", "http://$host:$boundPort", "latencyMs" to latencyMs))
        System.out.flush()
        stub.awaitClose()
    }
}

fun main(args: Array<String>) = StubCommand().main(args)
