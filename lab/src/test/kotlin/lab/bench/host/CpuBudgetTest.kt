package lab.bench.host

import lab.support.ProcView
import org.junit.jupiter.api.Assumptions.assumeTrue
import java.util.concurrent.TimeUnit
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The budget's arithmetic everywhere; what the kernel does with it where the harness can make a cgroup v1 cpu group (root, the v1 controller). */
class CpuBudgetTest {
    private var loop: Process? = null
    private var budget: CpuBudget? = null

    @AfterTest
    fun stop() {
        loop?.destroyForcibly()?.waitFor()
        budget?.close()
    }

    private fun budgetOrSkip(cores: Double): CpuBudget {
        val made = runCatching { CpuBudget.create("budget-test", cores) }
        assumeTrue(made.isSuccess, made.exceptionOrNull()?.message)
        return made.getOrThrow().also { budget = it }
    }

    /** The cores [process] used over [seconds], from its /proc ticks. */
    private fun coresOver(process: Process, seconds: Long): Double {
        val view = ProcView(process.pid())
        val before = view.cpuMs()!!
        val startNs = System.nanoTime()
        Thread.sleep(seconds * 1000)
        return (view.cpuMs()!! - before) / ((System.nanoTime() - startNs) / 1e6)
    }

    @Test
    fun `the quota is the kernel's shortest, 1 ms, and the period as short as that allows`() {
        assertEquals(4_000, CpuBudget.periodUs(0.25))
        assertEquals(1_000, CpuBudget.quotaUs(0.25))
        assertEquals(2_000, CpuBudget.periodUs(0.5))
        assertEquals(1_000, CpuBudget.periodUs(1.5), "over a CPU, the period is the kernel's shortest")
        assertEquals(1_500, CpuBudget.quotaUs(1.5))
    }

    @Test
    fun `a busy loop in its group runs free until the budget is imposed, then gets the budget and no more, and free again once lifted`() {
        val budget = budgetOrSkip(0.25)
        val loop = ProcessBuilder(budget.launch(listOf("sh", "-c", "while :; do :; done"))).start().also { loop = it }
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
        while (loop.pid() !in CgroupV1.pids(budget.dir) && System.nanoTime() < deadline) Thread.sleep(20)
        assertEquals(listOf(loop.pid()), CgroupV1.pids(budget.dir), "the loop runs in the group from its start")

        assertNull(budget.inEffectCores)
        val free = coresOver(loop, 1)
        assertTrue(free > 0.5, "with no budget yet, the loop had $free of a CPU")

        budget.impose()
        assertEquals(0.25, budget.inEffectCores)
        val throttledBefore = budget.throttledNs()!!
        val held = coresOver(loop, 2)
        // The kernel's guarantee: no more than the quota each period. The ticks /proc counts are 10 ms, 1% of 2 s.
        assertTrue(held <= 0.25 + 0.03, "under a budget of 0.25 cores the loop had $held")
        val throttledS = (budget.throttledNs()!! - throttledBefore) / 1e9
        // Held back for three quarters of each period it wanted to run: about 1.5 s of the 2.
        assertTrue(throttledS > 1.0, "the group counted $throttledS s held back")

        budget.lift()
        assertNull(budget.inEffectCores)
        val lifted = coresOver(loop, 1)
        assertTrue(lifted > 0.5, "with the budget lifted, the loop had $lifted of a CPU")
    }

    @Test
    fun `the group is gone once closed`() {
        val budget = budgetOrSkip(0.5)
        assertEquals("2000", java.io.File(budget.dir, "cpu.cfs_period_us").readText().trim())
        budget.close()
        assertFalse(budget.dir.exists())
        this.budget = null
    }
}
