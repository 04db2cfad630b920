package lab.support

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split

/** `--servers a,b`: the catalogue's servers to run, all of them by default; an unknown name is refused with the list to choose from. */
fun CliktCommand.serversOption() = option("--servers", help = "comma-separated, from: ${Catalogue.names.joinToString()}")
    .convert { name -> Catalogue.servers.firstOrNull { it.name == name } ?: fail(UnknownServer(name).message!!) }
    .split(",")
    .default(Catalogue.servers)
