package lab.bench

import kotlinx.serialization.Serializable
import lab.bench.host.CpuSplit
import lab.bench.host.HostLimits
import lab.bench.host.Preflight
import lab.bench.host.QuietHost
import lab.bench.load.LoadGenerators
import lab.bench.load.LoadPhase
import lab.bench.load.Profile
import lab.experiment.ExperimentManifest
import lab.support.Collector
import lab.support.EngineEntry
import lab.support.Provenance
import lab.support.ServerEntry

/**
 * `manifest.json`: everything needed to trust, compare and re-run a run. It is written when
 * the run starts and again when it ends (see [Provenance]): `failed` means a server failed and
 * the others still ran.
 */
@Serializable
data class Manifest(
    /** Where and from what the run came, and how it ended; [Provenance.jdk] is the servers' JDK. */
    override val provenance: Provenance,
    /** The version of run-folder.json its passes' series were written in ([lab.bench.folder.RunFolderFormat]). */
    val runFolderFormat: Int,
    /** Why a run stopped early, when that was not one server's failure (a load generator was lost). */
    val reason: String? = null,
    val profileName: String,
    val profile: Profile,
    val preflight: Preflight.Decision,
    val limits: HostLimits,
    val harnessJdk: String,
    /** Every server's flags, the same for all. */
    val jvmFlags: List<String>,
    /** Every server's garbage collector, as [lab.support.Collector] names it: one of [jvmFlags], named for the reader and the analysis. */
    val collector: String = Collector.ZGC.slug,
    /** What a pass that streamed JFR ran with besides [jvmFlags]: its recording, in the pass's folder, and the run's `lab.jfc`. */
    val jfrFlags: List<String> = emptyList(),
    val k6Version: String,
    /**
     * The vegeta-steps that offered the curve's steps, where the profile gave vegeta the curve: its path names the vegeta it is
     * built on and a hash of its source (setup/vegeta-steps.sh).
     */
    val vegeta: String = "",
    /** The wrk that offered the curve's full step, where the profile has one: its version line (`wrk --version`). */
    val wrk: String = "",
    /** Whether k6's web dashboard ran beside its samples (`--k6-dashboard`, or load generators of its own). */
    val k6Dashboard: Boolean = false,
    /** k6's Go runtime settings ([lab.bench.load.K6GoRuntime]); `shell`: as a load generator computes them. */
    val k6Environment: Map<String, String> = emptyMap(),
    /** vegeta's Go runtime settings, where it offered the curve ([lab.bench.load.VegetaCurve.environment]). */
    val vegetaEnvironment: Map<String, String> = emptyMap(),
    val servers: List<String>,
    /** What each of [servers] is (engine, model, traits), as servers.json declared it when the run started. */
    val catalogue: List<ServerEntry> = emptyList(),
    /** The engines of [catalogue]'s servers, with what the lab changed in each, as servers.json declared them when the run started. */
    val engines: Map<String, EngineEntry> = emptyMap(),
    /** The shortest virtual-thread pinning JFR recorded, in ms (`--pin-threshold-ms`). */
    val pinThresholdMs: Long? = null,
    /** The /json rate every server ran at: the profile's, `--json-rate`'s, or the one [calibration] found. */
    val jsonRatePerSecond: Int? = null,
    /** How [jsonRatePerSecond] was chosen, in a sentence: once for the run, and the same for every pass. */
    val jsonRateChoice: String? = null,
    val calibration: RateCalibration.Result? = null,
    /**
     * The phases of every pass's load at [jsonRatePerSecond], in seconds since its k6 started (LoadTimeline): each
     * outcome's loadStartEpochMs puts them on the clock, and the analysis reads a curve step's requests and seconds by them.
     */
    val timeline: List<LoadPhase> = emptyList(),
    /** The passes' folders in the order they ran (see [Pass.plan]), and the seed that shuffled it. */
    val passOrder: List<String> = emptyList(),
    val passSeed: Long? = null,
    val outcomes: List<ServerOutcome> = emptyList(),
    /** Where the servers listened. */
    val bindAddress: String = "127.0.0.1",
    /** The server's CPUs and the load's (k6, the stub, the harness); null: they shared every CPU. */
    val cpuSplit: CpuSplit? = null,
    /** Where memory.csv's kernel memory comes from: `cgroup-v1` (each server's own group) or `sockstat-host` (the host's TCP memory). */
    val kernelMemorySource: String? = null,
    /** What every server was started with besides its address and stub: empty, or the known-truth test's socket ballast. */
    val serverArgs: List<String> = emptyList(),
    /** The quiet-host check before the run and before each later pass, in order: what else ran, and the verdict. */
    val hostChecks: List<QuietHost.Check> = emptyList(),
    /** Empty: k6 ran on the server host and shared its CPU with the servers. Otherwise each host's k6 execution segment. */
    val loadGenerators: List<LoadGenerators.Segment> = emptyList(),
    /** One sentence for each pass that failed (its outcome says more); the other passes ran. */
    override val problems: List<String> = emptyList(),
) : ExperimentManifest
