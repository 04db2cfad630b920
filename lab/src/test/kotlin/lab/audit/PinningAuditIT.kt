package lab.audit

import kotlinx.serialization.builtins.ListSerializer
import kotlinx.serialization.json.Json
import lab.handlers.PinTrap
import lab.support.Catalogue
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
 * `make audit-pinning` as a user runs it, on the servers' JDK of `make test` (25, or 21 with
 * `make test JDK=21`): the matrix must find what [PinTrap] says for that JDK, not assume it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PinningAuditIT {
    private val root = File(System.getProperty("lab.root"))
    private val results = File(System.getProperty("lab.results"), "pinning-audit")
    private lateinit var cells: List<AuditCell>
    private lateinit var runDir: File
    private var exitCode = -1

    /** The servers that can pin and those that cannot, as the catalogue says: the audit must find pinning only where it can be. */
    private val pinnable = Catalogue.servers.filter { it.traits.canPin }
    private val unpinnable = Catalogue.servers.filter { !it.traits.canPin }

    @BeforeAll
    fun runAudit() {
        results.deleteRecursively()
        results.mkdirs()
        val log = File(results, "audit.log")
        val process = ProcessBuilder(
            "${env("LAB_HARNESS_JDK")}/bin/java", "-cp", File(root, "lab/target/lab.jar").path, "lab.audit.AuditMainKt",
            "--servers", (pinnable + unpinnable).joinToString(",") { it.name }, "--jdk", env("LAB_SERVER_JDK"), "--requests", "4",
            "--repo", root.path, "--results", results.path,
        ).redirectErrorStream(true).redirectOutput(log).start()
        if (!process.waitFor(4, TimeUnit.MINUTES)) {
            process.destroyForcibly()
            fail("the audit took over 4 minutes; see $log")
        }
        exitCode = process.exitValue()
        runDir = results.listFiles().orEmpty().singleOrNull { it.isDirectory } ?: fail("no run folder; see $log:\n${log.readText()}")
        cells = Json.decodeFromString(ListSerializer(AuditCell.serializer()), File(runDir, "audit.json").readText())
    }

    @Test
    fun `each trap pins a server that can pin where PinTrap says, and its fixed twin never`() {
        for (trap in PinTrap.entries) {
            for (server in pinnable) {
                val cell = cells.single { it.subject == trap.slug && it.server == server.name }
                if (trap.pinsOn(cell.jdk)) {
                    assertTrue(cell.pinnedEvents >= 4, "${trap.slug} on JDK ${cell.jdk}: $cell")
                } else {
                    // A path that does not pin may still load a class under its first concurrent calls (JDK 24+): short, and few.
                    assertTrue(cell.pinnedMs < 50.0 * 4 / 2, "${trap.slug} on JDK ${cell.jdk}: $cell")
                }
                if (trap.isFixed) assertEquals(0, cell.pinnedEvents, "${trap.slug} must not pin: $cell")
            }
        }
    }

    @Test
    fun `a server without virtual threads has none to pin, and the audit counts its threads instead`() {
        for (server in unpinnable) {
            val unpinned = cells.filter { it.server == server.name }
            assertTrue(unpinned.isNotEmpty(), "${server.name} was not audited: $cells")
            assertEquals(0, unpinned.sumOf { it.pinnedEvents }, "$unpinned")
        }
        // How far the pool grows depends on the threads it keeps idle, so the audit reports it and asserts nothing.
        assertTrue(cells.all { (it.threadsAfter ?: 0) > 0 }, "$cells")
    }

    @Test
    fun `warm request paths pin nothing, so the audit exits 0 and writes its matrix`() {
        assertEquals(0, cells.filter { it.subject == ServerProbe.WARM }.sumOf { it.pinnedEvents })
        assertEquals(0, exitCode)
        val markdown = File(runDir, "audit.md").readText()
        val columns = (pinnable + unpinnable).joinToString(" | ") { "${it.name} JDK ${cells.first().jdk}" }
        assertTrue("| subject | requests | $columns |" in markdown, markdown)
        assertTrue(PinTrap.entries.filter { !it.isFixed }.all { "`${it.slug}`: ${it.fix}" in markdown })
    }

    @Test
    fun `no process of the audit is left`() {
        val alive = ProcessHandle.allProcesses().filter { p -> p.info().commandLine().map { runDir.path in it }.orElse(false) }.toList()
        assertEquals(emptyList(), alive.map { it.info().commandLine().orElse("") })
    }

    private fun env(name: String): String = System.getenv(name) ?: fail("set $name; `make test` does")
}
