package lab.conformance

import lab.support.Catalogue
import lab.support.ReadyLine
import lab.support.ServerConfig
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * Every server waits its threads in the kernel's global futex hash (lab.support.FutexHash), as
 * every process did before Linux 6.16, unless told to keep the kernel's own choice: on Linux
 * 6.16 and later a private hash sized by the host's CPUs, whose cost with thousands of parked
 * OS threads is this host's and not the model's. The fact comes from the kernel (prctl), as
 * the server announces it on its READY line.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FutexHashTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `a server waits in the global futex hash unless told otherwise`(name: String) {
        Catalogue.named(name).start().use { server ->
            assertEquals("global", futexHashOf(server), "$name's READY line: ${server.readyLine}")
        }
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `told to keep the kernel's choice, a server says which hash that is`(name: String) {
        Catalogue.named(name).start("--futex-hash", "kernel").use { server ->
            val hash = futexHashOf(server)
            println("$name, the kernel's choice: $hash")
            // A kernel before 6.16 has only the global hash; a later one gives a private hash of 16 buckets or more.
            assertTrue(hash == "global" || Regex("private-[0-9]+").matches(hash.orEmpty()), "$name's READY line: ${server.readyLine}")
        }
    }

    private fun futexHashOf(server: LabProcess): String? = ReadyLine.fact(server.readyLine, ServerConfig.FUTEX_HASH)
}
