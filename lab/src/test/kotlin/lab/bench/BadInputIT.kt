package lab.bench

import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
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
        val exitCode = harness.await(harness.start(option, value), minutes = 1)
        val output = harness.log.readLines().filterNot { it.startsWith("WARNING") }
        assertEquals(2, exitCode, "$output")
        assertEquals(1, output.size, "one line: $output")
        assertTrue(output.single().startsWith("make bench: ") && expected in output.single(), output.single())
        assertTrue(harness.results.listFiles().orEmpty().none { it.isDirectory }, "no run folder")
    }
}
