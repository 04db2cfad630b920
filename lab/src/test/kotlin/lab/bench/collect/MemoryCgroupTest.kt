package lab.bench.collect

import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** Runs where the harness can make a cgroup v1 memory group (root, the v1 controller); skipped elsewhere. */
class MemoryCgroupTest {
    private fun cgroupOrSkip(): MemoryCgroup {
        val kernel = KernelMemory.forServer("cgroup-test")
        assumeTrue(kernel is MemoryCgroup, kernel.description)
        return kernel as MemoryCgroup
    }

    @Test
    fun `a command launched through the group runs in it from its start, under its own pid`() {
        val cgroup = cgroupOrSkip()
        val process = ProcessBuilder(cgroup.launch(listOf("sleep", "30"))).start()
        try {
            val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
            while (process.pid() !in cgroup.pids() && System.nanoTime() < deadline) Thread.sleep(20)
            assertEquals(listOf(process.pid()), cgroup.pids())
            assertTrue(ProcessHandle.of(process.pid()).get().info().command().get().endsWith("sleep"), "the shell became the command")
        } finally {
            process.destroy()
            process.waitFor()
            cgroup.close()
        }
    }

    @Test
    fun `it reads the group's TCP and kernel memory, and is removed once closed`() {
        val cgroup = cgroupOrSkip()
        val read = cgroup.read()
        assertEquals(listOf(MemoryCgroup.KERNEL_TCP, MemoryCgroup.KERNEL), read.keys.toList())
        assertEquals("9223372036854771712", File(cgroup.dir, "memory.kmem.tcp.limit_in_bytes").readText().trim(), "TCP accounting is on")
        cgroup.close()
        assertFalse(cgroup.dir.exists())
    }
}
