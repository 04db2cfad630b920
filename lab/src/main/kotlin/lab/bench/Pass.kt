package lab.bench

import lab.support.ServerEntry

/** One server run of a bench: which server, whether JFR streams from it, and which repeat it is. */
data class Pass(val server: ServerEntry, val streamJfr: Boolean, val repeat: Int) {
    /** Its folder in the run folder, e.g. `vthread`, `vthread-without-jfr`, `vthread-r2`. */
    val folder: String get() = server.name + (if (streamJfr) "" else "-without-jfr") + (if (repeat > 1) "-r$repeat" else "")

    companion object {
        /**
         * Every pass of a run, in order: each server's repeats one after another. With the
         * JFR comparison on, the repeats alternate which goes first (with, without; then
         * without, with), so a host that drifts over the run does not favour one side.
         */
        fun plan(servers: List<ServerEntry>, repeats: Int, compareWithoutJfr: Boolean): List<Pass> = servers.flatMap { server ->
            (1..repeats).flatMap { repeat ->
                val order = when {
                    !compareWithoutJfr -> listOf(true)
                    repeat % 2 == 1 -> listOf(true, false)
                    else -> listOf(false, true)
                }
                order.map { Pass(server, it, repeat) }
            }
        }
    }
}
