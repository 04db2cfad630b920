package lab.conformance

import lab.support.Catalogue
import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Every server of servers.json is held to the contract: it has its one-line [ConformanceSuite] subclass, and its jar is built. */
class CatalogueTest {
    private val root = File(System.getProperty("lab.root"))

    @Test
    fun `each server of the catalogue has exactly one conformance suite, and each suite is of a catalogue server`() {
        val classes = File(ConformanceSuite::class.java.protectionDomain.codeSource.location.toURI())
        val suites = classes.walk().filter { it.name.endsWith(".class") && '$' !in it.name }
            .map { Class.forName(it.relativeTo(classes).path.removeSuffix(".class").replace(File.separatorChar, '.')) }
            .filter { ConformanceSuite::class.java.isAssignableFrom(it) && it != ConformanceSuite::class.java }
            .map { (it.getDeclaredConstructor().newInstance() as ConformanceSuite).serverName }
            .toList()
        assertEquals(Catalogue.names.sorted(), suites.sorted(), "add `class XConformanceTest : ConformanceSuite(\"x\")` for a new server")
    }

    @Test
    fun `each server's jar is where the catalogue says`() {
        for (server in Catalogue.servers) {
            assertTrue(server.jarIn(root).isFile, "${server.name}: ${server.jar} is missing")
        }
    }
}
