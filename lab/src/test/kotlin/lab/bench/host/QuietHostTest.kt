package lab.bench.host

import java.util.UUID
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

class QuietHostTest {
    private val self = ProcessHandle.current().pid()
    private val stopAfter = mutableListOf<ProcessHandle>()

    /** Every process a test started, by pid, and what it started, so that no busy loop outlives the test. */
    @AfterTest
    fun stopStarted() = stopAfter.forEach { process ->
        process.descendants().forEach { it.destroyForcibly() }
        process.destroyForcibly()
    }

    private val quiet = QuietHost.Reading(
        windowSeconds = 2.0,
        otherCores = 0.03,
        busiest = listOf(QuietHost.ProcessCpu(812, 0.02, "/usr/sbin/sshd -D")),
        loadAverage1m = 0.4,
        onlineCpus = 2,
        otherLabRuns = emptyList(),
    )

    @Test
    fun `an idle host is quiet`() {
        val check = QuietHost.judge(quiet)
        assertEquals(QuietHost.Verdict.QUIET, check.verdict)
        assertEquals(emptyList(), check.reasons)
    }

    @Test
    fun `another lab run is refused, naming it and how to stop it`() {
        val other = QuietHost.LabProcess(
            5150,
            "java -jar lab/target/lab.jar --profile local",
            "/jdk/bin/java -jar lab/target/lab.jar --profile local",
        )
        val check = QuietHost.judge(quiet.copy(otherLabRuns = listOf(other), otherCores = 1.5))
        assertEquals(QuietHost.Verdict.REFUSE, check.verdict)
        assertTrue(
            "another lab run" in check.reasons.first() && "kill 5150" in check.reasons.first() &&
                "pid 5150: java -jar lab/target/lab.jar" in check.reasons.first(),
            "${check.reasons}",
        )
    }

    @Test
    fun `other processes' CPU above a quarter of a core marks the run, naming the busiest`() {
        val busy = quiet.copy(otherCores = 0.6, busiest = listOf(QuietHost.ProcessCpu(777, 0.55, "mvn verify")))
        val check = QuietHost.judge(busy)
        assertEquals(QuietHost.Verdict.MARK, check.verdict)
        assertTrue("0.60 cores" in check.reasons.single() && "pid 777 mvn verify" in check.reasons.single(), "${check.reasons}")
    }

    @Test
    fun `the hypervisor taking more than a quarter of a core marks the run, before it and between passes, and less does not`() {
        val stolen = quiet.copy(stealCores = 0.5)
        for (betweenPasses in listOf(false, true)) {
            val check = QuietHost.judge(stolen, betweenPasses)
            assertEquals(QuietHost.Verdict.MARK, check.verdict)
            assertTrue("the hypervisor took 0.50 cores" in check.reasons.single(), "${check.reasons}")
        }
        assertEquals(QuietHost.Verdict.QUIET, QuietHost.judge(quiet.copy(stealCores = 0.2)).verdict)
    }

    @Test
    fun `a load average above the CPU count marks the run before it, but not between passes, where it still counts the last pass`() {
        val loaded = quiet.copy(loadAverage1m = 2.7)
        assertEquals(QuietHost.Verdict.MARK, QuietHost.judge(loaded).verdict)
        assertTrue("load average is 2.70 on 2 CPU(s)" in QuietHost.judge(loaded).reasons.single())
        assertEquals(QuietHost.Verdict.QUIET, QuietHost.judge(loaded, betweenPasses = true).verdict)
    }

    @Test
    fun `a lab run is a java whose jar or class path is lab jar, or whose main class is a lab program's`() {
        assertTrue(
            QuietHost.isLabRun(
                listOf("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar", "lab/target/lab.jar", "--profile", "local"),
            ),
        )
        assertTrue(QuietHost.isLabRun(listOf("java", "-cp", "/work/main/lab/target/lab.jar", "lab.floor.FloorMainKt")))
        assertTrue(QuietHost.isLabRun(listOf("java", "-cp", "a.jar:lab/target/classes", "lab.clients.ClientsMainKt")))
        assertFalse(QuietHost.isLabRun(listOf("/bin/sh", "-c", "status=0; java -jar lab/target/lab.jar --profile local")), "make's shell")
        val server = listOf("java", "-jar", "jetty-virtual-server/target/jetty-virtual-server.jar", "--port", "8080")
        assertFalse(QuietHost.isLabRun(server), "a server")
        assertFalse(QuietHost.isLabRun(listOf("java", "-jar", "/work/wt-cpu/lab/target/surefire/surefirebooter-1.jar")), "a test JVM")
    }

    @Test
    fun `reads the 1-minute load average`() {
        assertEquals(0.43, QuietHost.parseLoadAverage1m("0.43 0.68 1.13 1/81 817377\n"))
    }

    @Test
    fun `a process that started within the window counts with all its CPU, and a pid reused meanwhile is a new process`() {
        val before = ProcessTable(listOf(ProcessTable.Entry(7, 1, "old", 5_000, 100)).associateBy { it.pid })
        val after = ProcessTable(
            listOf(ProcessTable.Entry(7, 1, "new", 150, 900), ProcessTable.Entry(8, 1, "started", 50, 950)).associateBy { it.pid },
        )
        assertEquals(mapOf(7L to 0.75, 8L to 0.25), QuietHost.otherCores(before, after, windowSeconds = 2.0, ours = emptySet()))
    }

    @Test
    fun `a busy process outside this process's tree is counted`() {
        val marker = "quiet-host-test-${UUID.randomUUID()}"
        // The outer shell exits at once, so the loop is handed to init (or a subreaper): no descendant of this JVM.
        ProcessBuilder("sh", "-c", "setsid timeout 10 sh -c 'while :; do :; done' $marker >/dev/null 2>&1 &").start().waitFor()
        val loop = awaitProcess { it.info().command().orElse("").endsWith("sh") && marker in it.info().arguments().orElse(emptyArray()) }
        loop.parent().ifPresent { stopAfter += it }
        stopAfter += loop

        val cores = otherCoresOver(2_000)
        assertFalse(loop.pid() in ProcessTable.read().treeOf(self))
        assertTrue((cores[loop.pid()] ?: 0.0) >= MIN_BUSY_CORES, "the loop used ${cores[loop.pid()]} cores")
        assertTrue(QuietHost.read(windowMs = 1_000).otherCores >= MIN_BUSY_CORES)
    }

    @Test
    fun `this process's own descendants are not counted`() {
        val timeout = ProcessBuilder("timeout", "10", "sh", "-c", "while :; do :; done").start()
        stopAfter += timeout.toHandle()
        val loop = awaitProcess { it.parent().map { p -> p.pid() == timeout.pid() }.orElse(false) }

        val before = ProcessTable.read()
        Thread.sleep(2_000)
        val after = ProcessTable.read()
        val everyone = QuietHost.otherCores(before, after, windowSeconds = 2.0, ours = emptySet())
        val others = QuietHost.otherCores(before, after, windowSeconds = 2.0, ours = before.treeOf(self) + after.treeOf(self))
        assertTrue((everyone[loop.pid()] ?: 0.0) >= MIN_BUSY_CORES, "the loop was busy: ${everyone[loop.pid()]} cores")
        assertFalse(loop.pid() in others, "the loop is this JVM's grandchild")
        assertFalse(self in others)
    }

    private fun otherCoresOver(windowMs: Long): Map<Long, Double> {
        val before = ProcessTable.read()
        val startNs = System.nanoTime()
        Thread.sleep(windowMs)
        val after = ProcessTable.read()
        return QuietHost.otherCores(before, after, (System.nanoTime() - startNs) / 1e9, before.treeOf(self) + after.treeOf(self))
    }

    private fun awaitProcess(matches: (ProcessHandle) -> Boolean): ProcessHandle {
        repeat(100) {
            ProcessHandle.allProcesses().filter(matches).findFirst().orElse(null)?.let { return it }
            Thread.sleep(20)
        }
        throw AssertionError("the busy loop did not start within 2 s")
    }

    private companion object {
        /** A busy loop on two cores shared with other work gets a fair part of one; far above an idle process. */
        const val MIN_BUSY_CORES = 0.2
    }
}
