package lab.contract

import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.jsonObject
import lab.audit.AuditManifest
import lab.autobahn.AutobahnManifest
import lab.bench.Manifest
import lab.bench.RateCalibration
import lab.bench.ServerOutcome
import lab.bench.collect.WallClockStep
import lab.bench.host.QuietHost
import lab.bench.load.LoadPhase
import lab.bench.load.Profile
import lab.clients.ClientsManifest
import lab.floor.FloorCell
import lab.floor.FloorManifest
import lab.support.Provenance
import lab.sweep.SweepManifest
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
            "manifest.json of a make bench run",
            Manifest.serializer(),
            Profile.serializer(),
            ServerOutcome.serializer(),
            WallClockStep.serializer(),
            LoadPhase.serializer(),
            RateCalibration.Probe.serializer(),
            QuietHost.Reading.serializer(),
        )
    }

    @Test
    fun `a sweep's manifest json is declared as its classes write it (contract, sweep-manifest schema json)`() {
        holds(
            "contract/sweep-manifest.schema.json",
            "manifest.json of a make sweep run",
            SweepManifest.serializer(),
            SweepManifest.Settings.serializer(),
            SweepManifest.Pass.serializer(),
        )
    }

    @Test
    fun `a floor's manifest json is declared as its classes write it (contract, floor-manifest schema json)`() {
        holds(
            "contract/floor-manifest.schema.json",
            "manifest.json of a make floor run",
            FloorManifest.serializer(),
            FloorCell.Outcome.serializer(),
        )
    }

    @Test
    fun `an Autobahn run's manifest json is declared as its classes write it (contract, autobahn-manifest schema json)`() {
        holds(
            "contract/autobahn-manifest.schema.json",
            "manifest.json of a make autobahn-perf run",
            AutobahnManifest.serializer(),
            AutobahnManifest.Arm.serializer(),
        )
    }

    @Test
    fun `a clients run's manifest json is declared as its classes write it (contract, clients-manifest schema json)`() {
        holds("contract/clients-manifest.schema.json", "manifest.json of a make clients run", ClientsManifest.serializer())
    }

    @Test
    fun `a pinning audit's manifest json is declared as its classes write it (contract, audit-manifest schema json)`() {
        holds("contract/audit-manifest.schema.json", "manifest.json of a make audit-pinning run", AuditManifest.serializer())
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

    /**
     * The schema of [root] at [path], each class given its defaults where the writer leaves them out: the root's own, the
     * provenance header's and its JDK's, which every manifest carries, and [withDefaults]'s.
     */
    private fun holds(path: String, title: String, root: KSerializer<*>, vararg withDefaults: KSerializer<*>) {
        val schema = ContractSchema(title, root, listOf(root, Provenance.serializer(), Provenance.Jdk.serializer()) + withDefaults)
        val repo = generateSequence(File("").absoluteFile) { it.parentFile }.first { File(it, "servers.json").isFile }
        val file = File(repo, path)
        val now = Json { prettyPrint = true }.encodeToString(JsonElement.serializer(), schema.json()) + "\n"
        val made = File("target/${file.name}").absoluteFile.also { it.writeText(now) }
        assertEquals(now, if (file.isFile) file.readText() else "", "the classes that write $path changed: $made is what they make now")
    }
}
