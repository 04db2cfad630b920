package lab.autobahn

import lab.support.Catalogue
import lab.support.ServerEntry

/**
 * One arm of `make autobahn-perf`: a catalogue server, run with all of the lab's changes to its
 * engine or without some of them (`--as-shipped`). Written `server`, `server:change+change` or
 * `server:all` on the command line; named `server` or `server-without-change-and-change` in the run folder.
 */
data class AutobahnArm(val server: ServerEntry, val asShipped: List<String>) {
    val name: String get() = if (asShipped.isEmpty()) server.name else "${server.name}-without-${asShipped.joinToString("-and-")}"

    /** The server's own options for this arm. */
    val serverArgs: List<String> get() = if (asShipped.isEmpty()) emptyList() else listOf("--as-shipped", asShipped.joinToString(","))

    companion object {
        /** Reads `server`, `server:change+change` or `server:all` ([Catalogue.arm]); a server or change servers.json does not declare is refused by name. */
        fun parse(text: String): AutobahnArm = Catalogue.arm(text).let { AutobahnArm(Catalogue.named(it.armOf ?: it.name), it.asShipped) }
    }
}
