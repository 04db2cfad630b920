package lab.handlers

import org.junit.jupiter.api.Test
import java.security.MessageDigest
import kotlin.test.assertEquals
import kotlin.test.assertNotEquals

class CpuWorkTest {
    @Test
    fun `one round is the SHA-256 of the seed`() {
        val expected = MessageDigest.getInstance("SHA-256").digest("loom-lab".toByteArray()).joinToString("") { "%02x".format(it) }
        assertEquals(expected, CpuWork.digest(1))
    }

    @Test
    fun `the digest depends on the number of rounds and nothing else`() {
        assertEquals(CpuWork.digest(1_000), CpuWork.digest(1_000))
        assertNotEquals(CpuWork.digest(1_000), CpuWork.digest(1_001))
    }
}
