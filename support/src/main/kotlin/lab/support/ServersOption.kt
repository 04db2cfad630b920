package lab.support

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split
import com.github.ajalt.clikt.parameters.options.validate

/**
 * `--servers a,b` (or another [name]): the catalogue's servers to run, all of them by default. Each may be an arm, `server:change+change` or
 * `server:all`, the server without some of the lab's changes to its engine ([Catalogue.arm]); an unknown name or change is
 * refused with what to choose from, and so is an arm named twice.
 */
fun CliktCommand.serversOption(name: String = "--servers") = option(
    name,
    help = "comma-separated, from: ${Catalogue.names.joinToString()}; server:change+change or server:all runs it without " +
        "those of the lab's changes to its engine (servers.json's engines)",
)
    .convert { text ->
        try {
            Catalogue.arm(text)
        } catch (e: IllegalArgumentException) {
            fail(e.message!!)
        }
    }
    .split(",")
    .default(Catalogue.servers)
    .validate { chosen ->
        chosen.groupBy { it.name }.filterValues { it.size > 1 }.keys.firstOrNull()?.let { fail("$it is named twice") }
    }
