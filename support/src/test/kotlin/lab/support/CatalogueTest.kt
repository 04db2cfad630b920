package lab.support

import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

/** The catalogue the jar carries is servers.json as it stands, and a malformed one fails before any server starts. */
class CatalogueTest {
    private val root = File(System.getProperty("lab.root"))
    private val text = File(root, "servers.json").readText()

    @Test
    fun `the jar's catalogue is the repository's servers json`() {
        assertEquals(Catalogue.parse(text), Catalogue.servers)
    }

    @Test
    fun `only a server whose threads come from a bounded pool is given its bound`() {
        for (server in Catalogue.servers) {
            val expected = if (server.traits.boundedPool) listOf("--threads", "21000") else emptyList()
            assertEquals(expected, server.poolArguments(21_000), server.name)
        }
        assertTrue(Catalogue.servers.any { it.traits.boundedPool } && Catalogue.servers.any { !it.traits.boundedPool })
    }

    @Test
    fun `every server's model is one the catalogue declares, and every declared model has a server`() {
        val models = Catalogue.models.map { it.name }
        assertTrue(Catalogue.servers.all { it.model in models })
        assertEquals(models.toSet(), Catalogue.servers.map { it.model }.toSet())
    }

    @Test
    fun `a catalogue without its models is refused`() {
        val (start, end) = text.indexOf("\"models\": [") to text.indexOf("\"engines\": {")
        assertTrue(start in 0..<end)
        val none = text.substring(0, start) + "\"models\": [],\n  " + text.substring(end)
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.parse(none) }
        assertTrue("must declare its models" in error.message.orEmpty(), error.message)
    }

    @Test
    fun `a model made of one the catalogue does not declare is refused`() {
        val fibers = text.replace("\"madeOf\": [\"coroutine\", \"virtual\"]", "\"madeOf\": [\"coroutine\", \"fiber\"]")
        assertTrue(fibers != text)
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.parse(fibers) }
        assertTrue("model coroutine-virtual is made of coroutine, fiber" in error.message.orEmpty(), error.message)
    }

    @Test
    fun `an unknown model is refused naming the models`() {
        val fiber = text.replaceFirst("\"model\": \"coroutine\"", "\"model\": \"fiber\"")
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.parse(fiber) }
        assertTrue("model 'fiber' is none of coroutine, virtual, platform, coroutine-virtual" in error.message.orEmpty(), error.message)
    }

    @Test
    fun `a missing trait is refused`() {
        assertFailsWith<IllegalArgumentException> { Catalogue.parse(text.replaceFirst("\"canPin\": false,", "")) }
    }

    @Test
    fun `a change whose name an arm's name could not be read back from is refused`() {
        val mixed = text.replaceFirst("\"name\": \"fill-lock\"", "\"name\": \"lock-with-fill\"")
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.parse(mixed) }
        assertTrue("change 'lock-with-fill' must be lowercase words joined by dashes" in error.message.orEmpty(), error.message)
    }

    @Test
    fun `an unknown server name is refused with the names to choose from`() {
        val error = assertFailsWith<UnknownServer> { Catalogue.named("fibers") }
        assertEquals("unknown server fibers; choose from ${Catalogue.names.joinToString()}", error.message)
    }

    @Test
    fun `a name from before the rename is answered with the server's name now`() {
        val error = assertFailsWith<UnknownServer> { Catalogue.named("vthread") }
        assertEquals("server vthread is called jetty-virtual since 2026-11-29: use that name", error.message)
    }

    @Test
    fun `a former name that is another server's name is refused`() {
        val clash = text.replaceFirst("\"formerNames\": [\"vthread\"]", "\"formerNames\": [\"jetty-platform\"]")
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.parse(clash) }
        assertEquals("servers.json: jetty-virtual's former name jetty-platform is another server's name", error.message)
    }

    @Test
    fun `a server's engine must be declared with what the lab changed in it`() {
        val undeclared = text.replace("\"engine\": \"jetty\"", "\"engine\": \"undertow\"")
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.parse(undeclared) }
        assertEquals("servers.json: jetty-virtual's engine undertow is not under engines", error.message)
    }

    @Test
    fun `every engine of a server is declared, and every change is a patch or a setting`() {
        Catalogue.servers.forEach { assertTrue(it.engine in Catalogue.engines, "${it.name}'s engine ${it.engine}") }
        val kinds = Catalogue.engines.values.flatMap { it.changes }.map { it.kind }.toSet()
        assertTrue(kinds.all { it in EngineEntry.KINDS }, "kinds: $kinds")
        val wrongKind = text.replaceFirst("\"kind\": \"setting\"", "\"kind\": \"tweak\"")
        assertFailsWith<IllegalArgumentException> { Catalogue.parse(wrongKind) }
    }
}
