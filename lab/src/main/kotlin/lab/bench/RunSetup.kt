package lab.bench

import lab.bench.collect.JfrRecording
import lab.bench.host.CpuSplit
import lab.bench.host.Preflight
import lab.bench.load.LoadGenerators
import lab.bench.load.Profile
import lab.bench.load.Wrk
import lab.support.Collector
import lab.support.JvmFlags
import java.io.File

/** What every server of a run shares: the profile after the preflight, the tools, and the JVM. */
data class RunSetup(
    val repo: File,
    val profile: Profile,
    val preflight: Preflight.Decision,
    val java: File,
    val jdkFeature: Int,
    val k6: File,
    val script: File,
    /** How long the downstream stub waits before it answers; each pass starts a stub of its own (see [ServerRun]). */
    val stubLatencyMs: Long,
    /** What JFR records in each server that streams it, and where. */
    val jfr: JfrRecording,
    /**
     * Where the servers listen. Loopback unless load comes from other hosts: then the server
     * host's address toward them (its private network's), and still never a public one.
     */
    val bindAddress: String = "127.0.0.1",
    /** 0: any free port. A fixed one when a firewall lets load generators reach that port alone. */
    val serverPort: Int = 0,
    /** Null: k6 runs beside the servers. */
    val loadGenerators: LoadGenerators? = null,
    /** The server's CPUs and the load's, when the profile divides them; null: every process shares every CPU. */
    val cpuSplit: CpuSplit? = null,
    /** Options every server of the run gets besides its address and stub: the socket ballast of the known-truth test. */
    val serverArgs: List<String> = emptyList(),
    /**
     * Whether a k6 beside the servers also runs its web dashboard ([lab.bench.load.K6Dashboard]). Off
     * unless asked for: on k6's one CPU here it cost k6's p99 about as much as writing every sample
     * (docs/JOURNAL.md, "What k6's own outputs cost"). A k6 on load generators of its own always runs it.
     */
    val k6Dashboard: Boolean = false,
    /** For tests of stopping: the phase in which a pass holds, with its server and k6 started, until the run is stopped. */
    val holdIn: String? = null,
    /** vegeta-steps, where the profile gives vegeta load (Profile.jsonGenerator, Profile.curveGenerator); null otherwise. */
    val vegeta: File? = null,
    /** wrk, where the profile has a full step (Profile.jsonFullStepSeconds); null otherwise. */
    val wrk: Wrk? = null,
    /** Every server's garbage collector (`--gc`). */
    val collector: Collector = Collector.ZGC,
) {
    /** The run's flags, the same for every server: [Manifest.jvmFlags], and [Manifest.jfrFlags] for a pass that streams JFR. */
    fun serverFlags(streamJfr: Boolean): List<String> =
        JvmFlags.forServer(profile.heapMb, jdkFeature, collector) + listOfNotNull(cpuSplit?.activeProcessorCountFlag) +
            (if (streamJfr) jfr.jvmOptions else emptyList())

    /** What the server's `java` command goes after: a CPU set of its own, where the run has one. */
    val serverPrefix: List<String> get() = cpuSplit?.serverCommandPrefix().orEmpty()
}
