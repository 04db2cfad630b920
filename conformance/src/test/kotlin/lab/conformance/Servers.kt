package lab.conformance

import lab.support.Catalogue
import lab.support.ServerEntry

/**
 * The catalogue's servers, by name, as the parameterized tests take them: a test that holds
 * servers to a trait runs on every server the catalogue gives that trait, and no other.
 */
object Servers {
    val all: List<String> = Catalogue.names
    val withBoundedPool: List<String> = Catalogue.servers.filter { it.traits.boundedPool }.map { it.name }
    val thatCanPin: List<String> = Catalogue.servers.filter { it.traits.canPin }.map { it.name }
}

/** Starts this server's jar on a free port (see [LabProcess]); [jvmOptions] go to its JVM after the suite's own. */
fun ServerEntry.start(vararg args: String, jvmOptions: List<String> = emptyList()): LabProcess =
    LabProcess.start(name, jar, *args, jvmOptions = jvmOptions)
