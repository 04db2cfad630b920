package lab.support

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** `--as-shipped`: the names of servers.json's engine changes, or all of them, and nothing it does not declare. */
class EngineChangesTest {
    private val jetty = Catalogue.engines.getValue("jetty").changes.map { it.name }

    @Test
    fun `a server runs with every change unless told otherwise`() {
        val changes = EngineChanges("jetty")
        assertTrue(jetty.all { changes.on(it) })
    }

    @Test
    fun `named changes are left out, and all leaves out every one`() {
        val one = EngineChanges.parse("jetty", "fill-lock")
        assertFalse(one.on("fill-lock"))
        assertTrue(one.on("no-bare-lf"))
        assertEquals(jetty.toSet(), EngineChanges.parse("jetty", "all").asShipped)
    }

    @Test
    fun `an alternative is off unless named, and named it takes the place of its change`() {
        val alternative = Catalogue.engines.getValue("jetty").alternatives.first { it.insteadOf != null }
        assertFalse(EngineChanges("jetty").on(alternative.name))
        val chosen = EngineChanges.parse("jetty", alternative.name)
        assertTrue(chosen.on(alternative.name))
        assertFalse(chosen.on(alternative.insteadOf!!))
        assertEquals(setOf(alternative.insteadOf!!), chosen.asShipped)
    }

    @Test
    fun `an alternative instead of no change leaves every change on`() {
        val engine = Catalogue.engines.getValue("ktor-netty")
        val alternative = engine.alternatives.first { it.insteadOf == null }
        val chosen = EngineChanges.parse("ktor-netty", alternative.name)
        assertTrue(chosen.on(alternative.name))
        assertTrue(engine.changes.all { chosen.on(it.name) })
        assertEquals(emptySet(), chosen.asShipped)
    }

    @Test
    fun `a change the engine does not declare is refused by name, beside all too`() {
        val error = assertFailsWith<IllegalArgumentException> { EngineChanges.parse("jetty", "all,close-linger") }
        assertTrue(error.message!!.startsWith("jetty has no change called close-linger; servers.json declares fill-lock"), error.message)
        assertFailsWith<IllegalArgumentException> { EngineChanges("jetty").on("close-linger") }
    }
}
