package lab.bench.host

import kotlinx.serialization.json.Json
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.assertThrows
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class CpuSplitTest {
    private val started = mutableListOf<Process>()

    @AfterTest
    fun stopStarted() = started.forEach { it.destroyForcibly().waitFor() }

    @Test
    fun `reads the kernel's CPU lists, ranges and single CPUs alike`() {
        assertEquals(listOf(0, 1, 2, 3, 8, 10, 11), CpuSplit.parseCpuList("0-3,8,10-11\n"))
        assertEquals(listOf(0), CpuSplit.parseCpuList("0"))
    }

    @Test
    fun `writes CPU numbers as taskset takes them, runs as ranges`() {
        assertEquals("0-3,8,10-11", CpuSplit.cpuList(listOf(11, 0, 1, 2, 3, 8, 10)))
        assertEquals("1", CpuSplit.cpuList(listOf(1)))
    }

    @Test
    fun `the server gets the highest-numbered CPUs and the load the rest`() {
        assertEquals(CpuSplit(serverCpus = listOf(1), loadCpus = listOf(0)), CpuSplit.plan(1, listOf(0, 1)))
        assertEquals(CpuSplit(serverCpus = listOf(6, 7), loadCpus = listOf(2, 3, 4, 5)), CpuSplit.plan(2, listOf(2, 3, 4, 5, 6, 7)))
    }

    @Test
    fun `a profile that gives the server no CPUs asks for no split`() {
        assertNull(CpuSplit.plan(0, listOf(0, 1)))
        assertNull(CpuSplit.forThisHost(0))
    }

    @Test
    fun `a split that leaves the load no CPU is refused, with one line that says what to do`() {
        val refusal = assertThrows<PreflightRefusal> { CpuSplit.plan(1, listOf(0)) }
        val reason = refusal.reasons.single()
        assertTrue("only 1 (CPUs 0)" in reason && "declare serverCpus 0 or fewer" in reason && '\n' !in reason, reason)
    }

    @Test
    fun `the server's JVM is sized to its CPU set`() {
        assertEquals("-XX:ActiveProcessorCount=2", CpuSplit(listOf(2, 3), listOf(0, 1)).activeProcessorCountFlag)
    }

    @Test
    fun `the manifest has the split as two lists of CPU numbers`() {
        assertEquals("""{"serverCpus":[1],"loadCpus":[0]}""", Json.encodeToString(CpuSplit.serializer(), CpuSplit(listOf(1), listOf(0))))
    }

    @Test
    fun `this process may use at least one online CPU`() {
        assertTrue(CpuSplit.usableCpus().isNotEmpty())
    }

    @Test
    fun `a process started with the server's prefix runs only on the server's CPUs, under its own pid`() {
        val split = hostSplit()
        val sleep = ProcessBuilder(split.serverCommandPrefix() + listOf("sleep", "5")).start().also { started += it }
        awaitUntil("taskset execs sleep in its own process") { commandOf(sleep.pid()) == "sleep" }
        assertEquals(split.serverCpus, CpuSplit.affinityOf(sleep.pid()))
    }

    @Test
    fun `pinning a running process moves each of its threads onto the load's CPUs`() {
        val split = hostSplit()
        val sleep = ProcessBuilder("sleep", "5").start().also { started += it }
        split.pinToLoadCpus(sleep.pid())
        assertEquals(split.loadCpus, CpuSplit.affinityOf(sleep.pid()))
    }

    @Test
    fun `what a pinned process starts afterwards inherits the load's CPUs`() {
        val split = hostSplit()
        // The shell waits a moment, so that it is pinned before it starts its child; `true` keeps it from exec'ing the last sleep.
        val shell = ProcessBuilder("sh", "-c", "sleep 0.5; sleep 5; true").start().also { started += it }
        split.pinToLoadCpus(shell.pid())
        fun secondSleep() = shell.toHandle().children().filter { it.info().arguments().orElse(emptyArray()).contentEquals(arrayOf("5")) }
            .findFirst().orElse(null)
        awaitUntil("the shell starts its second sleep") { secondSleep() != null }
        val child = secondSleep()
        try {
            assertEquals(split.loadCpus, CpuSplit.affinityOf(child.pid()))
        } finally {
            child.destroyForcibly()
        }
    }

    /** A split of this host as a profile with one server CPU has it; the tests that run taskset need two CPUs. */
    private fun hostSplit(): CpuSplit {
        val usable = CpuSplit.usableCpus()
        assumeTrue(usable.size >= 2, "this host lets the tests use only CPUs $usable")
        return CpuSplit.forThisHost(1)!!
    }

    private fun commandOf(pid: Long): String? = ProcessHandle.of(pid).flatMap { it.info().command() }.orElse(null)?.substringAfterLast('/')

    private fun awaitUntil(what: String, condition: () -> Boolean) {
        repeat(100) {
            if (condition()) return
            Thread.sleep(20)
        }
        throw AssertionError("$what: not within 2 s")
    }
}
