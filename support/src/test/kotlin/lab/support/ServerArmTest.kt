package lab.support

import org.junit.jupiter.api.Test
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
        val alternative = Catalogue.engines.getValue("jetty").alternatives.first()
        val arm = Catalogue.arm("jetty-virtual:${alternative.name}")
        assertEquals("jetty-virtual-with-${alternative.name}", arm.name)
        assertEquals(listOf(alternative.insteadOf), arm.asShipped)
        assertEquals(
            listOf("--as-shipped", alternative.insteadOf, "--alternatives", alternative.name),
            arm.asShippedArgs,
        )
        assertEquals("${jetty.label}, with ${alternative.name} instead of ${alternative.insteadOf}", arm.label)
    }

    @Test
    fun `an unknown server or change is refused by name`() {
        assertFailsWith<UnknownServer> { Catalogue.arm("fibers:fill-lock") }
        val error = assertFailsWith<IllegalArgumentException> { Catalogue.arm("jetty-virtual:close-linger") }
        assertTrue(error.message!!.startsWith("jetty has no change called close-linger"), error.message)
    }
}
