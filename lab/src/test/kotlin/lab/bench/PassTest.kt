package lab.bench

import lab.support.Catalogue
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

class PassTest {
    @Test
    fun `a plain run is each server once, with JFR`() {
        assertEquals(
            Catalogue.names,
            Pass.plan(Catalogue.servers, repeats = 1, compareWithoutJfr = false).map { it.folder },
        )
    }

    @Test
    fun `the JFR comparison alternates which side goes first from one repeat to the next`() {
        val (a, b) = Catalogue.servers.take(2)
        val passes = Pass.plan(listOf(a, b), repeats = 2, compareWithoutJfr = true)
        assertEquals(
            listOf(a, b).flatMap { s ->
                listOf(s.name, "${s.name}-without-jfr", "${s.name}-without-jfr-r2", "${s.name}-r2")
            },
            passes.map { it.folder },
        )
        assertEquals(listOf(true, false, false, true), passes.take(4).map { it.streamJfr })
    }
}
