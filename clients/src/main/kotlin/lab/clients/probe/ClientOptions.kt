package lab.clients.probe

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.options.split

/** `--clients a,b`: the clients to measure, all by default; an unknown name is refused with the list to choose from. */
fun CliktCommand.clientsOption() = option("--clients", help = "comma-separated, from: ${ClientKind.slugs.joinToString()}")
    .convert { slug -> ClientKind.of(slug) ?: fail("unknown client '$slug'; choose from ${ClientKind.slugs.joinToString()}") }
    .split(",")
    .default(ClientKind.entries)
