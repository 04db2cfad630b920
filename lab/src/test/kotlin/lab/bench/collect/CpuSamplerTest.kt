package lab.bench.collect

import lab.bench.host.CpuSplit
import lab.bench.load.Profile
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertNull
import kotlin.test.assertTrue

class CpuSamplerTest {
    @TempDir
    lateinit var dir: File

    private val clock = RunClock(Profile.load(File(System.getProperty("lab.root"), "loadtests/profiles"), "smoke"))
    private val self = ProcessHandle.current().pid()
    private val started = mutableListOf<Process>()

    /** A split of this host's CPUs as a profile with one server CPU would have it, if it has two. */
    private val split = CpuSplit.usableCpus().takeIf { it.size >= 2 }?.let { CpuSplit.plan(1, it) }

    /** Each process a test started, and what it started (timeout's command), so that no busy loop outlives the test. */
    @AfterTest
    fun stopStarted() = started.forEach { process ->
        process.descendants().forEach { it.destroyForcibly() }
        process.destroyForcibly().waitFor()
    }

    private fun start(vararg command: String): Process = ProcessBuilder(*command).start().also { started += it }

    /** The process [parent] started (timeout starts its command as its child). */
    private fun childOf(parent: Process): ProcessHandle {
        repeat(100) {
            parent.toHandle().children().findFirst().orElse(null)?.let { return it }
            Thread.sleep(20)
        }
        throw AssertionError("${parent.pid()} started no child within 2 s")
    }

    private fun sample(pids: Map<CpuSampler.Role, Long>, seconds: Double, meanwhile: (CpuSampler) -> Unit = {}): CpuSampler {
        val sampler = CpuSampler(clock, File(dir, "cpu.csv"), pids, split)
        sampler.use {
            it.start()
            meanwhile(it)
            Thread.sleep((seconds * 1000).toLong())
        }
        return sampler
    }

    @Test
    fun `writes a row a second, with an empty cell for a role that has no process here`() {
        val sampler = sample(mapOf(CpuSampler.Role.HARNESS to self), seconds = 2.5)
        val lines = File(dir, "cpu.csv").readLines()
        assertEquals(
            "time_s,phase,server,k6,stub,harness,steal,server_cpus_busy,load_cpus_busy,vegeta,server_budget,server_throttled_s,server_jit,load_cpus_steal,server_gc,server_vm,wrk",
            lines.first(),
        )
        assertEquals(2, lines.size - 1, "$lines")
        for (cells in lines.drop(1).map { it.split(",") }) {
            assertEquals(17, cells.size, "$cells")
            assertEquals("startup", cells[1])
            assertEquals(listOf("", "", ""), cells.subList(2, 5), "no server, k6 or stub was given")
            assertTrue(cells[5].toDouble() >= 0 && cells[6].toDouble() in 0.0..1.0, "$cells")
            if (split != null) assertTrue(cells[7].toDouble() in 0.0..1.0 && cells[8].toDouble() in 0.0..1.0, "$cells")
            assertEquals("", cells[9], "no vegeta was given")
            assertEquals(listOf("", ""), cells.subList(10, 12), "no CPU budget was given")
            assertEquals("", cells[12], "no server was given")
            if (split != null) {
                assertTrue(cells[13].toDouble() in 0.0..cells[8].toDouble(), "the load's stolen share is of its busy share: $cells")
            }
            assertEquals(listOf("", ""), cells.subList(14, 16), "no server was given")
        }
        assertEquals(sampler.rows().last(), sampler.latest)
    }

    @Test
    fun `the server's JIT compilers, its collector and its VM thread are each a part of its cores, not all of them`() {
        // This JVM stands in as the server: a thread of its own spins, and its compilers, collector and VM thread are whatever
        // they are.
        val spinning = Thread.ofPlatform().daemon().start { while (!Thread.currentThread().isInterrupted) Thread.onSpinWait() }
        val sampler = try {
            sample(mapOf(CpuSampler.Role.SERVER to self), seconds = 2.5)
        } finally {
            spinning.interrupt()
        }
        val rows = sampler.rows()
        assertEquals(2, rows.size, "$rows")
        for (row in rows) {
            val server = row.serverCores!!
            val jit = row.serverJitCores ?: throw AssertionError("no compiler threads found in $row")
            val gc = row.serverGcCores ?: throw AssertionError("no collector's threads found in $row")
            // The spinning thread has a core to itself only on an idle host: half of what the JVM used is a margin for the rest.
            assertTrue(server > 0.3 && jit in 0.0..server / 2, "the spinning thread is no compiler's: $row")
            assertTrue(gc in 0.0..server / 2, "the spinning thread is not the collector's: $row")
            val vm = row.serverVmCores ?: throw AssertionError("no VM thread found in $row")
            assertTrue(vm in 0.0..server / 2, "nor the VM thread: $row")
        }
    }

    @Test
    fun `a busy process tracked after the start shows about the cores it used`() {
        val busy = start("timeout", "10", "sh", "-c", "while :; do :; done")
        val loop = childOf(busy)
        val sampler = sample(mapOf(CpuSampler.Role.HARNESS to self), seconds = 2.5) { it.track(CpuSampler.Role.K6, loop.pid()) }
        val k6 = sampler.rows().mapNotNull { it.k6Cores }
        assertEquals(2, k6.size, "${sampler.rows()}")
        // On two cores shared with other work a busy loop gets at least a fair part of one; it cannot use more than one.
        assertTrue(k6.all { it in 0.1..1.05 }, "$k6")
    }

    @Test
    fun `a process that exits mid-run leaves its cell empty from then on, and sampling goes on`() {
        val shortLived = start("sleep", "1.4")
        val sampler = sample(mapOf(CpuSampler.Role.SERVER to shortLived.pid(), CpuSampler.Role.HARNESS to self), seconds = 3.5)
        val rows = sampler.rows()
        assertEquals(3, rows.size, "$rows")
        assertNotNull(rows.first().serverCores)
        assertNull(rows.last().serverCores)
        assertNull(rows.last().serverJitCores, "a server that is gone has no compilers")
        assertNull(rows.last().serverGcCores, "nor a collector")
        assertNull(rows.last().serverVmCores, "nor a VM thread")
        assertTrue(rows.all { it.harnessCores != null }, "$rows")
    }

    @Test
    fun `a row is written with three decimals and nothing in an empty cell`() {
        val row = CpuSampler.Row(
            12.5, "json", 0.25, null, 0.0123456, 0.1, 0.0, null, 0.9,
            serverBudgetCores = 0.25, serverThrottledS = 0.7504, serverJitCores = 0.0456, loadCpusSteal = 0.0804, serverGcCores = 0.1234,
            serverVmCores = 0.0071, wrkCores = 0.0456,
        )
        assertEquals(
            listOf(
                "12.5", "json", "0.250", null, "0.012", "0.100", "0.000", null, "0.900", null, "0.250", "0.750", "0.046", "0.080", "0.123",
                "0.007", "0.046",
            ),
            CpuSampler.cells(row),
        )
    }
}
