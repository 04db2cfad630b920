package lab.support

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull
import kotlin.test.assertTrue

/**
 * An arm is a catalogue server without some of the lab's changes to its engine, so that one run can hold a server beside
 * itself as shipped: `server:change+change` or `server:all` on a command line.
 */
class ServerArmTest {
    private val jetty = Catalogue.named("jetty-virtual")

    @Test
    fun `a server alone is the catalogue's entry, run with every change`() {
        val entry = Catalogue.arm("jetty-virtual")
        assertEquals(jetty, entry)
        assertEquals(emptyList(), entry.asShippedArgs)
        assertNull(entry.armOf)
    }

    @Test
    fun `an arm keeps its server's engine, model and jar, and names what it runs without`() {
        val arm = Catalogue.arm("jetty-virtual:fill-lock")
        assertEquals("jetty-virtual-without-fill-lock", arm.name)
        assertEquals(listOf(jetty.engine, jetty.model, jetty.jar, jetty.traits), listOf(arm.engine, arm.model, arm.jar, arm.traits))
        assertEquals("jetty-virtual", arm.armOf)
        assertEquals(listOf("--as-shipped", "fill-lock"), arm.asShippedArgs)
        assertEquals("${jetty.label}, without fill-lock", arm.label)
    }

    @Test
    fun `one arm has one name, whatever order its changes were written in`() {
        val ktor = Catalogue.named("ktor-coroutine")
        val declared = Catalogue.engines.getValue(ktor.engine).changes.map { it.name }
        val (first, second) = declared.take(2)
        assertEquals(Catalogue.arm("ktor-coroutine:$second+$first").name, Catalogue.arm("ktor-coroutine:$first+$second").name)
        assertEquals("ktor-coroutine-without-$first-and-$second", Catalogue.arm("ktor-coroutine:$second+$first").name)
    }

    @Test
    fun `all leaves out every change, and the label says as shipped`() {
        val arm = Catalogue.arm("jetty-virtual:all")
        assertEquals(Catalogue.engines.getValue("jetty").changes.map { it.name }, arm.asShipped)
        assertEquals("${jetty.label}, as shipped", arm.label)
    }

    @Test
    fun `an alternative runs in place of the change it replaces, and the arm is named for the alternative`() {
        val alternative = Catalogue.engines.getValue("jetty").alternatives.first { it.insteadOf != null }
        val replaced = alternative.insteadOf!!
        val arm = Catalogue.arm("jetty-virtual:${alternative.name}")
        assertEquals("jetty-virtual-with-${alternative.name}", arm.name)
        assertEquals(listOf(replaced), arm.asShipped)
        assertEquals(listOf("--as-shipped", replaced, "--alternatives", alternative.name), arm.asShippedArgs)
        assertEquals("${jetty.label}, with ${alternative.name} instead of $replaced", arm.label)
    }

    @Test
    fun `an alternative instead of no change runs beside every change`() {
        val ktor = Catalogue.named("ktor-coroutine")
        val alternative = Catalogue.engines.getValue(ktor.engine).alternatives.first { it.insteadOf == null }
        val arm = Catalogue.arm("ktor-coroutine:${alternative.name}")
        assertEquals("ktor-coroutine-with-${alternative.name}", arm.name)
        assertEquals(emptyList(), arm.asShipped)
        assertEquals(listOf("--alternatives", alternative.name), arm.asShippedArgs)
        assertEquals("${ktor.label}, with ${alternative.name}", arm.label)
    }

    @Test
    fun `an unknown server or change is refused by name`() {
        assertFailsWith<UnknownServer> { Catalogue.arm("fibers:fill-lock") }
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.arm("jetty-virtual:close-linger") }
        assertTrue(error.message!!.startsWith("jetty has no change called close-linger"), error.message)
    }

    /**
     * The analysis reads an arm back from its name alone (labanalysis.folder.catalogue), so the two languages must name and label
     * every arm alike. Both are held to one file: this test to what [Catalogue.arm] makes of each arm's text now, and
     * analysis/tests/test_catalogue.py to what labanalysis.folder.catalogue reads back from each name.
     */
    @Test
    fun `every arm is named and labelled as the analysis reads it back (analysis's fixtures, arms json)`() {
        val repo = generateSequence(File("").absoluteFile) { it.parentFile }.first { File(it, "servers.json").isFile }
        val file = File(repo, ARMS_FIXTURE)
        val now = Json { prettyPrint = true }.encodeToString(
            JsonElement.serializer(),
            JsonArray(
                everyKindOfArm().map { text ->
                    val arm = Catalogue.arm(text)
                    buildJsonObject {
                        put("text", text)
                        put("name", arm.name)
                        put("armOf", arm.armOf)
                        put("label", arm.label)
                    }
                },
            ),
        ) + "\n"
        val made = File("target/arms.json").absoluteFile.also { it.writeText(now) }
        assertEquals(now, if (file.isFile) file.readText() else "", "servers.json or ServerEntry.arm changed: $made is what they make now")
    }

    /** For each server: each change left out alone, every change, each alternative, and an alternative with another change left out. */
    private fun everyKindOfArm(): List<String> = Catalogue.servers.flatMap { server ->
        val engine = Catalogue.engines.getValue(server.engine)
        engine.changes.map { "${server.name}:${it.name}" } + "${server.name}:all" + engine.alternatives.flatMap { alternative ->
            listOf("${server.name}:${alternative.name}") +
                engine.changes.filter { it.name != alternative.insteadOf }.take(1).map { "${server.name}:${alternative.name}+${it.name}" }
        }
    }

    private companion object {
        const val ARMS_FIXTURE = "analysis/tests/fixtures/arms.json"
    }
}
