package lab.bench

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Bad input to `make bench` is one line on stderr that says what to do, exit code 2, and no run folder. */
class BadInputIT {
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
        "--profile, huge, unknown profile 'huge'; choose one of:",
        "--servers, 'jetty-virtual,fibers', unknown server fibers; choose from",
        "--servers, 'vthread', server vthread is called jetty-virtual since 2026-11-29: use that name",
        "--json-rate, fast, --json-rate: fast is not a valid integer",
        "--server-jdk, /nonexistent, is not a JDK home",
    )
    fun `is refused in one line`(option: String, value: String, expected: String) {
        val harness = Harness("bad-input")
        assertRefusedInOneLine(harness, harness.await(harness.start(option, value), minutes = 1), expected)
    }

    @Test
    fun `jars packaged before a source of their checkout changed are refused in one line`(@TempDir checkout: File) {
        val minuteAgoMs = System.currentTimeMillis() - 60_000
        fun file(path: String, modifiedMs: Long, text: String = "") = File(checkout, path).apply {
            parentFile.mkdirs()
            writeText(text)
            setLastModified(modifiedMs)
        }
        file("pom.xml", minuteAgoMs - 60_000, "<modules><module>lab</module></modules>")
        file("lab/target/lab.jar", minuteAgoMs)
        file("lab/src/main/kotlin/Changed.kt", System.currentTimeMillis())
        val harness = Harness("stale-jars")
        assertRefusedInOneLine(
            harness,
            harness.await(harness.start("--repo", checkout.path), minutes = 1),
            "lab/src/main/kotlin/Changed.kt changed after the jars were built, so they are not this checkout's code: run `make clean build`",
        )
    }

    private fun assertRefusedInOneLine(harness: Harness, exitCode: Int, expected: String) {
        val output = harness.log.readLines().filterNot { it.startsWith("WARNING") }
        assertEquals(2, exitCode, "$output")
        assertEquals(1, output.size, "one line: $output")
        assertTrue(output.single().startsWith("make bench: ") && expected in output.single(), output.single())
        assertTrue(harness.results.listFiles().orEmpty().none { it.isDirectory }, "no run folder")
    }
}
