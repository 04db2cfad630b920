package lab.bench.load

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import java.io.File
import kotlin.test.assertEquals

/**
 * Calibration's count of dropped iterations is the report's: both read the same fixture of k6
 * samples (analysis/tests/fixtures/dropped-iterations) and must give its expected counts.
 */
class K6LoadTest {
    private val fixture = File(System.getProperty("lab.root"), "analysis/tests/fixtures/dropped-iterations")
    private val expected = Json.parseToJsonElement(File(fixture, "expected.json").readText()).jsonObject

    @ParameterizedTest
    @ValueSource(strings = ["json", "dashboard", "pin_traps"])
    fun `dropped iterations from the steady json phase's first whole second are the report's`(scenario: String) {
        val from = if (scenario == "json") expected.getValue("jsonSteadyFromEpochSecond").jsonPrimitive.long else 0L
        val dropped = expected.getValue("dropped").jsonObject.getValue(scenario).jsonPrimitive.long
        assertEquals(dropped, K6Load.droppedIterations(fixture, scenario, fromEpochSecond = from))
    }
}
