package lab.bench.load

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class GoRuntimeTest {
    private val host = 24L shl 30

    @Test
    fun `k6 and vegeta run with the collector off until their share of the host's memory, and trace each collection`() {
        for ((environment, share) in listOf(K6GoRuntime.environment(host) to 2L, GoRuntime.environment(host / 8) to 8L)) {
            assertEquals("off", environment["GOGC"])
            assertEquals((host / share).toString(), environment["GOMEMLIMIT"])
            assertEquals("gctrace=1", environment["GODEBUG"])
        }
    }

    @Test
    fun `k6 and two overlapping vegeta attacks leave a quarter of the host for the server`() {
        val taken = host / K6GoRuntime.MEMORY_SHARE_DENOMINATOR + 2 * host / VegetaCurve.MEMORY_SHARE_DENOMINATOR
        assertTrue(host - taken >= host / 4, "k6 and vegeta may take $taken of $host bytes")
    }

    @Test
    fun `vegeta's attacks get the runtime with an eighth of this host's memory`() {
        assertEquals(GoRuntime.environment(GoRuntime.hostMemoryBytes() / VegetaCurve.MEMORY_SHARE_DENOMINATOR), VegetaCurve.environment())
    }
}
