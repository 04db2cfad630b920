package lab.bench

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

class PassTest {
    @Test
    fun `a plain run is each server once, with JFR`() {
        assertEquals(
            listOf("coroutine", "vthread", "platform"),
            Pass.plan(listOf("coroutine", "vthread", "platform"), repeats = 1, compareWithoutJfr = false).map { it.folder },
        )
    }

    @Test
    fun `the JFR comparison alternates which side goes first from one repeat to the next`() {
        val passes = Pass.plan(listOf("vthread", "platform"), repeats = 2, compareWithoutJfr = true)
        assertEquals(
            listOf(
                "vthread",
                "vthread-without-jfr",
                "vthread-without-jfr-r2",
                "vthread-r2",
                "platform",
                "platform-without-jfr",
                "platform-without-jfr-r2",
                "platform-r2",
            ),
            passes.map { it.folder },
        )
        assertEquals(listOf(true, false, false, true), passes.take(4).map { it.streamJfr })
    }
}
