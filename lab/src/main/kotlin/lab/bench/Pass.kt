package lab.bench

import lab.support.ServerEntry
import kotlin.random.Random

/** One server run of a bench: which server, whether JFR streams from it, and which repeat it is. */
data class Pass(val server: ServerEntry, val streamJfr: Boolean, val repeat: Int) {
    /** Its folder in the run folder, e.g. `jetty-virtual`, `jetty-virtual-without-jfr`, `jetty-virtual-r2`. */
    val folder: String get() = server.name + (if (streamJfr) "" else "-without-jfr") + (if (repeat > 1) "-r$repeat" else "")

    companion object {
        /**
         * Every pass of a run, in the order they run: [repeats] rounds, each with one pass of
         * every server (and, with the JFR comparison on, one with and one without the stream),
         * in an order shuffled afresh for each round from [seed]. Interleaved, a host that drifts
         * over the run (another tenant, a warming disk cache) touches every server's passes
         * alike; shuffled, no server always runs first or right after another. The seed goes in
         * the manifest, so the order can be told and repeated.
         */
        fun plan(servers: List<ServerEntry>, repeats: Int, compareWithoutJfr: Boolean, seed: Long): List<Pass> {
            val random = Random(seed)
            val settings = if (compareWithoutJfr) listOf(true, false) else listOf(true)
            return (1..repeats).flatMap { repeat ->
                servers.flatMap { server -> settings.map { Pass(server, it, repeat) } }.shuffled(random)
            }
        }
    }
}
