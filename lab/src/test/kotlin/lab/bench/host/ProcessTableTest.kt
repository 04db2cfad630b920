package lab.bench.host

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ProcessTableTest {
    private fun entry(
        pid: Long,
        ppid: Long,
        cpuTicks: Long = 0,
        startTicks: Long = 1,
    ) = ProcessTable.Entry(pid, ppid, "p$pid", cpuTicks, startTicks)

    @Test
    fun `reads a stat line whose name holds spaces and parentheses`() {
        val line = "4242 (Web Content (x)) S 4100 4242 4100 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 31 0 987654 123456789 4321 " +
            "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0"
        assertEquals(ProcessTable.Entry(4242, 4100, "Web Content (x)", 1234 + 567, 987654), ProcessTable.parseStat(line))
    }

    @Test
    fun `reads a command line's NUL-separated arguments`() {
        assertEquals(
            listOf("java", "-jar", "lab/target/lab.jar"),
            ProcessTable.parseCommandLine("java\u0000-jar\u0000lab/target/lab.jar\u0000".toByteArray()),
        )
        assertEquals(emptyList(), ProcessTable.parseCommandLine(ByteArray(0)), "a kernel thread has none")
    }

    @Test
    fun `a java command is shown by what it runs, not by the JVM's options and class path`() {
        val maven = listOf("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED", "-classpath", "/m/boot/plexus-classworlds.jar", "-Dx=y")
        assertEquals(
            "java org.codehaus.plexus.classworlds.launcher.Launcher --batch-mode verify",
            ProcessTable.shortCommand(maven + listOf("org.codehaus.plexus.classworlds.launcher.Launcher", "--batch-mode", "verify")),
        )
        assertEquals(
            "java -jar lab/target/lab.jar --profile local",
            ProcessTable.shortCommand(listOf("java", "-Xmx1g", "-jar", "lab/target/lab.jar", "--profile", "local")),
        )
        assertEquals("sshd -D", ProcessTable.shortCommand(listOf("/usr/sbin/sshd", "-D")))
        assertEquals(ProcessTable.SHORT_COMMAND_CHARS, ProcessTable.shortCommand(listOf("sh", "-c", "x".repeat(500))).length)
    }

    @Test
    fun `a process's tree is it and everything under it, grandchildren included`() {
        val table = ProcessTable(listOf(entry(1, 0), entry(10, 1), entry(11, 10), entry(12, 11), entry(20, 1)).associateBy { it.pid })
        assertEquals(setOf(10L, 11L, 12L), table.treeOf(10))
    }

    @Test
    fun `a process's ancestors are those above it, up to init`() {
        val table = ProcessTable(listOf(entry(1, 0), entry(10, 1), entry(11, 10), entry(20, 1)).associateBy { it.pid })
        assertEquals(setOf(10L, 1L), table.ancestorsOf(11))
    }

    @Test
    fun `this host's table has this process, its parent and the CPU it used`() {
        val table = ProcessTable.read()
        val self = table.processes.getValue(ProcessHandle.current().pid())
        assertEquals(ProcessHandle.current().parent().get().pid(), self.ppid)
        assertTrue(self.cpuTicks > 0 && self.name == "java", "$self")
    }
}
