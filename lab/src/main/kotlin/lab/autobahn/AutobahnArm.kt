package lab.autobahn

import lab.support.Catalogue
import lab.support.ServerEntry

/**
 * One arm of `make autobahn-perf`: a catalogue server, run with all of the lab's changes to its
 * engine, without some of them (`--as-shipped`), or with an alternative in place of one
 * ([Catalogue.arm]). Written `server`, `server:change+change` or `server:all` on the command
 * line; named `server`, `server-without-change-and-change` or `server-with-alternative` in the run folder.
 */
data class AutobahnArm(val entry: ServerEntry) {
    val name: String get() = entry.name

    /** The catalogue server the arm runs. */
    val server: ServerEntry get() = Catalogue.named(entry.armOf ?: entry.name)

    val asShipped: List<String> get() = entry.asShipped

    val alternatives: List<String> get() = entry.alternatives

    /** The server's own options for this arm. */
    val serverArgs: List<String> get() = entry.asShippedArgs

    companion object {
        /** Reads `server`, `server:change+change` or `server:all`; a server or change servers.json does not declare is refused by name. */
        fun parse(text: String): AutobahnArm = AutobahnArm(Catalogue.arm(text))
    }
}
