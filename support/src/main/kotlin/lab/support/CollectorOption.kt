package lab.support

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.choice

/** `--gc zgc|g1`: the [Collector] every JVM of [whose] runs on, ZGC by default; another name is refused with the choices. */
fun CliktCommand.collectorOption(whose: String) = option(
    "--gc",
    help = "the collector $whose runs: zgc (the lab's) or g1 (the JDK's default)",
)
    .choice(Collector.entries.associateBy { it.slug })
    .default(Collector.ZGC)
