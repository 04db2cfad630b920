package lab.floor

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import lab.bench.folder.RunFolderFormat
import lab.floor.tasks.Model
import lab.floor.tasks.Warmth
import lab.support.Collector
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.Test
import kotlin.test.assertEquals

/** `make bench` measures its floor first only where results/ holds no whole floor of its JDK and collector, every model, both warmths. */
class MeasuredFloorsTest {
    @TempDir
    lateinit var results: File

    private val models = Model.entries.map { it.slug }
    private val warmths = Warmth.entries.map { it.slug }

    /**
     * A copy of the analysis's floor fixture (as analysis/tests/test_floor_folders.py makes it, whose report picks by the same
     * rule), saying it measured [features] on [collector] (null: as before the collector was an axis), [parked] models in
     * [parkedWarm] warmths (null: as before the warmth was an axis), in run-folder [format], and ended [status].
     */
    private fun floor(
        name: String,
        features: List<Int>,
        status: String = "complete",
        withCsv: Boolean = true,
        collector: Collector? = null,
        parked: List<String> = models,
        parkedWarm: List<String>? = warmths,
        format: Int = RunFolderFormat.version,
    ): File {
        val folder = File(results, name).apply { mkdirs() }
        val fixture = File(System.getProperty("lab.root"), "analysis/tests/fixtures/floor")
        if (withCsv) File(fixture, "floor.csv").copyTo(File(folder, "floor.csv"))
        val recorded = Json.parseToJsonElement(File(fixture, "manifest.json").readText()).jsonObject
        val settings = recorded.getValue("settings").jsonObject
        val manifest = JsonObject(
            recorded +
                mapOf(
                    "provenance" to JsonObject(recorded.getValue("provenance").jsonObject + ("status" to JsonPrimitive(status))),
                    "runFolderFormat" to JsonPrimitive(format),
                    "jdks" to
                        JsonArray(
                            recorded.getValue("jdks").jsonArray.filter {
                                it.jsonObject.getValue("feature").jsonPrimitive.content.toInt() in
                                    features
                            },
                        ),
                    "settings" to
                        JsonObject(
                            settings + ("models" to strings(parked)) - "warmths" +
                                listOfNotNull(parkedWarm?.let { "warmths" to strings(it) }),
                        ),
                ) +
                listOfNotNull(collector?.let { "collector" to JsonPrimitive(it.slug) }),
        )
        File(folder, "manifest.json").writeText(manifest.toString())
        return folder
    }

    private fun strings(values: List<String>) = JsonArray(values.map(::JsonPrimitive))

    private fun covering(
        feature: Int,
        collector: Collector = Collector.ZGC,
        parked: List<String> = models,
        parkedWarm: List<String> = warmths,
    ) = MeasuredFloors.covering(results, feature, collector, parked, parkedWarm).map { it.name }

    @Test
    fun `a whole floor of the JDK covers it, and the newest comes last`() {
        floor("20261120-100000-floor", listOf(21, 25))
        floor("20261121-100000-floor", listOf(25))
        floor("20261122-100000-floor", listOf(21))
        floor("20261123-100000-floor", listOf(25), status = "failed")
        floor("20261123-110000-floor", listOf(25), status = "running")
        floor("20261123-120000-floor", listOf(25), format = RunFolderFormat.version + 1)
        floor("20261124-100000-floor", listOf(25), withCsv = false)

        assertEquals(listOf("20261120-100000-floor", "20261121-100000-floor"), covering(25))
        assertEquals(listOf("20261120-100000-floor", "20261122-100000-floor"), covering(21))
    }

    @Test
    fun `a floor is of its collector, and one that names none is ZGC's`() {
        floor("20261120-100000-floor", listOf(25))
        floor("20261121-100000-floor", listOf(25), collector = Collector.G1)
        floor("20261122-100000-floor", listOf(25), collector = Collector.ZGC)

        assertEquals(listOf("20261120-100000-floor", "20261122-100000-floor"), covering(25))
        assertEquals(listOf("20261121-100000-floor"), covering(25, Collector.G1))
    }

    @Test
    fun `a floor without a model or a warmth asked for covers nothing`() {
        floor("20261120-100000-floor", listOf(25))
        floor("20261121-100000-floor", listOf(25), parked = models.dropLast(1))
        floor("20261122-100000-floor", listOf(25), parkedWarm = listOf("warm"))

        assertEquals(listOf("20261120-100000-floor"), covering(25))
        assertEquals(listOf("20261120-100000-floor", "20261121-100000-floor"), covering(25, parked = models.dropLast(1)))
        assertEquals(listOf("20261120-100000-floor", "20261122-100000-floor"), covering(25, parkedWarm = listOf("warm")))
    }

    @Test
    fun `a floor from before the warmth was an axis parked its tasks warm`() {
        floor("20261120-100000-floor", listOf(25), parkedWarm = null)

        assertEquals(emptyList(), covering(25))
        assertEquals(listOf("20261120-100000-floor"), covering(25, parkedWarm = listOf("warm")))
    }

    @Test
    fun `a folder that is no floor this harness wrote covers nothing`() {
        File(results, "20261120-100000-floor").mkdirs()
        File(results, "20261121-100000-floor").apply { mkdirs() }.resolve("manifest.json").writeText("{}")

        assertEquals(emptyList(), covering(25))
    }
}
