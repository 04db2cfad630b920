package lab.bench.host

import lab.bench.load.K6Plan
import lab.bench.load.Profile
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
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

    /** A host as infra/tune-host.sh leaves it: the targets of its one declared list. */
    private val tunedHost = HostLimits.tuned(File(System.getProperty("lab.root"), "infra/host-limits.conf"))

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
        // The request load's connections: 2,000 VUs for /json at 2,000/s, 200 for /dashboard at 200/s.
        assertEquals(2_200, Preflight.requestConnections(profile(30_000)))
        assertEquals(10_000 - 2_200 - Preflight.FD_HEADROOM, decision.idleSockets)
        assertTrue(decision.notes.first().startsWith("idle sockets scaled from 30000 to 7300"), "${decision.notes}")
        assertTrue(decision.notes.any { "2200 connections of the request load" in it }, "${decision.notes}")
    }

    @Test
    fun `a curve given to vegeta counts its pool's connections, and a profile that does not fit 20,000 files is cut`() {
        val curve = Profile.load(File(System.getProperty("lab.root"), "loadtests/profiles"), "curve")
        val k6 = K6Plan.vusFor(curve.jsonRatePerSecond) + K6Plan.vusFor(curve.dashboardRatePerSecond)
        assertEquals(k6 + curve.curveConnections, Preflight.requestConnections(curve))
        val crowded = curve.copy(idleSockets = 19_000, curveConnections = 1_000)
        val decision = Preflight.check(crowded, labMachine, scalable = true)
        assertEquals(20_000 - (k6 + 1_000) - Preflight.FD_HEADROOM, decision.idleSockets)
        assertTrue(decision.notes.any { "open files per process" in it }, "the limit is named: ${decision.notes}")
    }

    @Test
    fun `the platform server's threads bound the sockets by pid_max and map count too, beside its requests' threads`() {
        val decision = Preflight.check(profile(40_000), labMachine.copy(openFilesHard = 1_000_000), scalable = true)
        // A request and each of /dashboard's two downstream calls hold a thread of a server that blocks: 3 for each of 2,200 connections.
        assertEquals(6_600, Preflight.requestThreads(profile(40_000)))
        assertEquals((65_530 - 2 * (6_600 + Preflight.THREAD_HEADROOM)) / 2, decision.idleSockets)
    }

    @Test
    fun `a bounded pool may start a thread for every socket, and for every request of the load with its downstream calls`() {
        val local = Preflight.check(profile(15_000), labMachine, scalable = true)
        assertEquals(15_000 + 6_600 + Preflight.THREAD_HEADROOM, local.poolThreads)
        val cut = Preflight.check(profile(30_000), labMachine.copy(openFilesHard = 10_000), scalable = true)
        assertEquals(cut.idleSockets + 6_600 + Preflight.THREAD_HEADROOM, cut.poolThreads, "sized to the sockets the run opens")
        val vps = Preflight.check(
            Profile.load(File(System.getProperty("lab.root"), "loadtests/profiles"), "vps"),
            tunedHost,
            scalable = false,
        )
        assertTrue(vps.poolThreads >= 50_000 + 3 * 2_200, "the vps profile's 50,000 sockets and its request load: ${vps.poolThreads}")
    }

    @Test
    fun `the vps profile is refused here, naming every limit and the command that lifts it`() {
        val refusal = assertThrows<PreflightRefusal> { Preflight.check(profile(50_000), labMachine, scalable = false) }
        assertEquals(4, refusal.reasons.size, "${refusal.reasons}")
        assertEquals(Preflight.TUNE, refusal.reasons.last(), "the one command that lifts them all comes last")
        assertTrue(refusal.reasons.any { "open files" in it && "ulimit -Hn" in it }, "${refusal.reasons}")
        assertTrue(refusal.reasons.any { "kernel.pid_max" in it && "sysctl -w kernel.pid_max=" in it }, "${refusal.reasons}")
        assertTrue(refusal.reasons.any { "vm.max_map_count" in it && "sysctl -w vm.max_map_count=" in it }, "${refusal.reasons}")
    }

    @Test
    fun `what tune-host sets is read as the preflight reads a host`() {
        assertTrue(tunedHost.openFilesHard >= 1_000_000 && tunedHost.localPorts > 60_000, "$tunedHost")
    }

    @Test
    fun `with load from other hosts, this host's ephemeral ports do not bound the sockets`() {
        val narrowPorts = tunedHost.copy(localPortFirst = 32_768, localPortLast = 60_999)
        assertEquals(1, Preflight.check(profile(50_000), narrowPorts, scalable = false, loadHere = false).sourceAddresses)
    }

    @Test
    fun `a load generator needs a descriptor and a port for each socket of its share`() {
        assertEquals(emptyList(), Preflight.loadGeneratorShortfalls("lg", tunedHost, 25_000))
        // 30,000 sockets: past 20,000 descriptors, and past the 28,232 ports of Linux's default range.
        val shortfalls = Preflight.loadGeneratorShortfalls("root@10.0.0.3", labMachine, 30_000)
        assertEquals(2, shortfalls.size, "$shortfalls")
        assertTrue(shortfalls.all { it.startsWith("load generator root@10.0.0.3: ") }, "$shortfalls")
    }

    @Test
    fun `a host's limits read over SSH are parsed as this host's are`() {
        val output = File("/proc/self/limits").readText() + HostLimits.SYSCTLS.joinToString("\n") {
            "$it=" + File("/proc/sys/${it.replace('.', '/')}").readText().trim()
        }
        assertEquals(HostLimits.read(), HostLimits.parseRemote(output))
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
