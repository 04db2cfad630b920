package lab.bench

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class PreflightTest {
    /** This lab's machines: 20,000 open files that root cannot raise, and Debian's defaults. */
    private val labMachine = HostLimits(
        openFilesHard = 20_000,
        maxMapCount = 65_530,
        pidMax = 32_768,
        threadsMax = 192_730,
        localPortFirst = 32_768,
        localPortLast = 60_999,
        somaxconn = 4_096,
    )

    /** A host tuned as infra/ tunes the Hetzner machine. */
    private val tunedHost = HostLimits(
        openFilesHard = 1_048_576,
        maxMapCount = 262_144,
        pidMax = 4_194_304,
        threadsMax = 4_000_000,
        localPortFirst = 1_024,
        localPortLast = 65_535,
        somaxconn = 65_535,
    )

    private fun profile(sockets: Int) = Profile(
        description = "test",
        idleSockets = sockets,
        socketSteps = 5,
        stepHoldSeconds = 30,
        pingIntervalSeconds = 30,
        jsonRatePerSecond = 2_000,
        jsonWarmupSeconds = 15,
        jsonSeconds = 120,
        calibrationSeconds = 20,
        dashboardRatePerSecond = 200,
        dashboardSeconds = 60,
        heapMb = 2_048,
    )

    @Test
    fun `the local profile's 15,000 sockets fit this lab's machines as declared`() {
        val decision = Preflight.check(profile(15_000), labMachine, scalable = true)
        assertEquals(15_000, decision.idleSockets)
        assertEquals(1, decision.sourceAddresses)
        assertEquals(emptyList(), decision.notes)
    }

    @Test
    fun `a scalable profile is cut to the open-files limit, and says so`() {
        val decision = Preflight.check(profile(30_000), labMachine.copy(openFilesHard = 10_000), scalable = true)
        assertEquals(10_000 - Preflight.FD_HEADROOM, decision.idleSockets)
        assertTrue(decision.notes.first().startsWith("idle sockets scaled from 30000 to 8000"), "${decision.notes}")
    }

    @Test
    fun `the platform server's threads bound the sockets by pid_max and map count too`() {
        val decision = Preflight.check(profile(40_000), labMachine.copy(openFilesHard = 1_000_000), scalable = true)
        assertEquals((65_530 - 2 * Preflight.THREAD_HEADROOM) / 2, decision.idleSockets)
    }

    @Test
    fun `the vps profile is refused here, naming every limit and the command that lifts it`() {
        val refusal = assertThrows<PreflightRefusal> { Preflight.check(profile(50_000), labMachine, scalable = false) }
        assertEquals(3, refusal.reasons.size, "${refusal.reasons}")
        assertTrue(refusal.reasons.any { "open files" in it && "ulimit -Hn" in it }, "${refusal.reasons}")
        assertTrue(refusal.reasons.any { "kernel.pid_max" in it && "sysctl -w kernel.pid_max=" in it }, "${refusal.reasons}")
        assertTrue(refusal.reasons.any { "vm.max_map_count" in it && "sysctl -w vm.max_map_count=" in it }, "${refusal.reasons}")
    }

    @Test
    fun `on a tuned host the vps profile runs whole`() {
        val decision = Preflight.check(profile(50_000), tunedHost, scalable = false)
        assertEquals(50_000, decision.idleSockets)
        assertEquals(1, decision.sourceAddresses, "64,512 ephemeral ports hold 50,000 sockets from one address")
    }

    @Test
    fun `past one address's ephemeral ports, k6 spreads the sockets over several loopback addresses`() {
        // Linux's default range, 32768-60999, has 28,232 ports: about 25,000 sockets per address.
        val decision = Preflight.check(profile(50_000), tunedHost.copy(localPortFirst = 32_768, localPortLast = 60_999), scalable = false)
        assertEquals(2, decision.sourceAddresses)
        assertTrue(decision.notes.any { "127.0.0.1-127.0.0.2" in it }, "${decision.notes}")
    }
}
