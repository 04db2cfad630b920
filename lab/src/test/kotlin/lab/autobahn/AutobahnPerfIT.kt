package lab.autobahn

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import lab.support.ReadyLine
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * `make autobahn-perf` as a user runs it, made small: the Ktor server with all of the lab's
 * changes and without its close linger, two of section 9's cases, two passes. The folder holds
 * one pass folder per arm and pass, in the order the manifest gives, each with wstest's own
 * index.json for that arm; the arm without the linger ran a server that said so on its READY line.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AutobahnPerfIT {
    private val root = File(System.getProperty("lab.root"))
    private val results = File(System.getProperty("lab.results"), "autobahn")
    private lateinit var dir: File
    private lateinit var manifest: AutobahnManifest
    private var exitCode = -1

    @BeforeAll
    fun run() {
        val into = File(results, "run").apply {
            deleteRecursively()
            mkdirs()
        }
        val log = File(into, "autobahn.log")
        val process = ProcessBuilder(
            listOf(
                "${env("LAB_HARNESS_JDK")}/bin/java", "--enable-native-access=ALL-UNNAMED", "-cp", File(root, "lab/target/lab.jar").path,
                "lab.autobahn.AutobahnPerfMainKt", "--repo", root.path, "--results", into.path, "--jdk", env("LAB_SERVER_JDK"),
                "--wstest", env("LAB_WSTEST"), "--arms", "ktor-coroutine,ktor-coroutine:close-linger", "--cases", "9.1.1,9.2.1",
                "--passes", "2", "--seed", "7",
            ),
        ).redirectErrorStream(true).redirectOutput(log).start()
        if (!process.waitFor(4, TimeUnit.MINUTES)) {
            process.destroy()
            fail("autobahn-perf took over 4 minutes; see $log")
        }
        exitCode = process.exitValue()
        dir = into.listFiles().orEmpty().singleOrNull { it.isDirectory } ?: fail("no run folder; see ${log.readText()}")
        manifest = Json.decodeFromString(AutobahnManifest.serializer(), File(dir, "manifest.json").readText())
    }

    @Test
    fun `the run completes, every arm in every pass, in the order the manifest records`() {
        assertEquals(0, exitCode, File(dir, "manifest.json").readText())
        assertEquals("complete", manifest.provenance.status)
        val arms = listOf("ktor-coroutine", "ktor-coroutine-without-close-linger")
        assertEquals(arms, manifest.arms.map { it.name })
        assertEquals(listOf(listOf(), listOf("close-linger")), manifest.arms.map { it.asShipped })
        for (pass in 1..2) assertEquals(arms.toSet(), manifest.passOrder.filter { it.pass == pass }.map { it.arm }.toSet())
        assertEquals(manifest.passOrder.map { it.folder }, manifest.outcomes.map { it.folder })
        assertTrue(manifest.outcomes.all { it.status == "ok" }, "${manifest.outcomes}")
    }

    @Test
    fun `each pass folder holds wstest's verdicts on the cases for its arm`() {
        for (pass in manifest.passOrder) {
            val index = File(dir, "${pass.folder}/${FuzzingClientSpec.INDEX}")
            val cases = Json.parseToJsonElement(index.readText()).jsonObject[pass.arm]?.jsonObject ?: fail("$index has no ${pass.arm}")
            assertEquals(setOf("9.1.1", "9.2.1"), cases.keys, "$index")
        }
    }

    @Test
    fun `the arm without the linger ran a server that says so, and the other one with every change`() {
        val lines = manifest.passOrder.associate { it.arm to ReadyLine.firstIn(File(dir, "${it.folder}/server.log")).orEmpty() }
        assertTrue("asShipped=close-linger" in lines.getValue("ktor-coroutine-without-close-linger"), "$lines")
        assertTrue("asShipped" !in lines.getValue("ktor-coroutine"), "$lines")
    }

    private fun env(name: String): String = System.getenv(name) ?: fail("set $name; `make test` does")
}
