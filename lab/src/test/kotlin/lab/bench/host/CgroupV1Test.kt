package lab.bench.host

import org.junit.jupiter.api.Assumptions.assumeTrue
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The lab's groups: named after the harness that made them, and removed once that harness is gone and nothing runs in them. */
class CgroupV1Test {
    private val made = mutableListOf<File>()
    private var sleeper: Process? = null

    @AfterTest
    fun tidy() {
        sleeper?.destroyForcibly()?.waitFor()
        made.reversed().forEach { CgroupV1.remove(it) }
    }

    /** A pid no process has now: one that ran and was reaped, so the kernel has not handed it out again yet, or hardly. */
    private fun goneHarnessPid(): Long = ProcessBuilder("true").start().also { it.waitFor() }.pid()

    private fun mkdirOrFail(group: File) {
        assertTrue(group.mkdir(), "made ${group.path}")
        made += group
    }

    private fun groupOrSkip(name: String): File {
        val group = CgroupV1.makeGroup("cpu", name)
        assumeTrue(group != null, "no cgroup v1 cpu group can be made here (root and the v1 controller)")
        return group!!.also { made += it }
    }

    @Test
    fun `a group's name gives the pid of the harness that made it`() {
        assertEquals(4242L, CgroupV1.harnessPid("20261129-020725-smoke-jetty-coroutine-4242-50799476419107"))
        assertEquals(7L, CgroupV1.harnessPid("check-7-123"))
        assertNull(CgroupV1.harnessPid("budget"), "a name the lab did not make")
        assertNull(CgroupV1.harnessPid("a-b-c"))
        assertNull(CgroupV1.harnessPid("x-12-y"), "the last part is the nanos, a number")
    }

    @Test
    fun `making a group removes the empty ones of harnesses no longer running, and keeps a running harness's and a busy one`() {
        val ours = groupOrSkip("orphans-test-ours")
        val parent = ours.parentFile
        val gone = goneHarnessPid()
        val orphan = File(parent, "orphans-test-$gone-1").also(::mkdirOrFail)
        val busy = File(parent, "orphans-test-busy-${goneHarnessPid()}-2").also(::mkdirOrFail)
        sleeper = ProcessBuilder(CgroupV1.launchInto(busy, listOf("sleep", "30"))).start()
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
        while (CgroupV1.pids(busy).isEmpty() && System.nanoTime() < deadline) Thread.sleep(20)
        assertEquals(1, CgroupV1.pids(busy).size, "the sleeper runs in its group")

        groupOrSkip("orphans-test-next")

        assertFalse(orphan.exists(), "an empty group whose harness is gone is removed")
        assertTrue(ours.exists(), "a group of this harness, still running, stays")
        assertTrue(busy.exists(), "a group something runs in stays, whoever made it")
    }
}
