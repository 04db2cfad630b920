package lab.bench

import lab.support.Catalogue
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class PassTest {
    private val servers = Catalogue.servers

    @Test
    fun `a run of one repeat is each server once, with JFR`() {
        val passes = Pass.plan(servers, repeats = 1, compareWithoutJfr = false, seed = 1)
        assertEquals(Catalogue.names.sorted(), passes.map { it.folder }.sorted())
        assertTrue(passes.all { it.streamJfr && it.repeat == 1 })
    }

    @Test
    fun `repeats are interleaved, every round running each server once before any runs again`() {
        val passes = Pass.plan(servers, repeats = 3, compareWithoutJfr = false, seed = 7)
        assertEquals(servers.size * 3, passes.size)
        passes.chunked(servers.size).forEachIndexed { round, passesOfRound ->
            assertEquals(servers.map { it.name }.toSet(), passesOfRound.map { it.server.name }.toSet())
            assertTrue(passesOfRound.all { it.repeat == round + 1 })
        }
        assertEquals(passes.size, passes.map { it.folder }.toSet().size, "each pass has a folder of its own")
    }

    @Test
    fun `the order is shuffled by the seed, and the same seed gives the same order`() {
        val order = { seed: Long -> Pass.plan(servers, repeats = 3, compareWithoutJfr = false, seed = seed).map { it.folder } }
        assertEquals(order(42), order(42))
        assertTrue((1L..20L).map(order).toSet().size > 1, "twenty seeds gave one order")
        val firsts = (1L..40L).map { order(it).first() }.toSet()
        assertTrue(firsts.size > 1, "one server always ran first: $firsts")
    }

    @Test
    fun `the JFR comparison puts both settings of every server in each round`() {
        val (a, b) = servers.take(2)
        val passes = Pass.plan(listOf(a, b), repeats = 2, compareWithoutJfr = true, seed = 3)
        assertEquals(
            setOf(a.name, "${a.name}-without-jfr", b.name, "${b.name}-without-jfr"),
            passes.take(4).map { it.folder }.toSet(),
        )
        assertEquals(
            setOf("${a.name}-r2", "${a.name}-without-jfr-r2", "${b.name}-r2", "${b.name}-without-jfr-r2"),
            passes.drop(4).map { it.folder }.toSet(),
        )
    }
}
