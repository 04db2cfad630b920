package lab.contract

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.jsonObject
import lab.bench.Manifest
import lab.bench.ServerOutcome
import lab.bench.collect.WallClockStep
import lab.bench.load.LoadPhase
import java.io.File
import kotlin.test.Test
import kotlin.test.assertEquals

/**
 * The run folder's JSON documents as the analysis reads them. Each is declared once, in a schema under contract/ made from
 * the classes that write it; the analysis's types are held to the same file (analysis/tests/test_contract.py). So a class
 * changed here fails this test until its schema is made again, and the analysis's test until its reader follows.
 */
class ContractSchemaTest {
    @Test
    fun `a bench run's manifest json is declared as its classes write it (contract, bench-manifest schema json)`() {
        holds(
            "contract/bench-manifest.schema.json",
            ContractSchema(
                "manifest.json of a make bench run",
                Manifest.serializer(),
                withDefaults = listOf(ServerOutcome.serializer(), WallClockStep.serializer(), LoadPhase.serializer()),
            ),
        )
    }

    @Test
    fun `a property with a default is not required, and the schema gives the default the writer leaves out`() {
        val schema = ContractSchema("an outcome", ServerOutcome.serializer(), withDefaults = listOf(ServerOutcome.serializer())).json()
        val outcome = schema.getValue("\$defs").jsonObject.getValue("lab.bench.ServerOutcome").jsonObject
        val properties = outcome.getValue("properties").jsonObject

        assertEquals("""["server","status","seconds"]""", outcome.getValue("required").toString())
        assertEquals("""{"type":"boolean","default":true}""", properties.getValue("jfrStreaming").toString())
        assertEquals("""{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}""", properties.getValue("reason").toString())
        assertEquals("""{"type":"string"}""", properties.getValue("server").toString())
    }

    private fun holds(path: String, schema: ContractSchema) {
        val repo = generateSequence(File("").absoluteFile) { it.parentFile }.first { File(it, "servers.json").isFile }
        val file = File(repo, path)
        val now = Json { prettyPrint = true }.encodeToString(JsonElement.serializer(), schema.json()) + "\n"
        val made = File("target/${file.name}").absoluteFile.also { it.writeText(now) }
        assertEquals(now, if (file.isFile) file.readText() else "", "the classes that write $path changed: $made is what they make now")
    }
}
