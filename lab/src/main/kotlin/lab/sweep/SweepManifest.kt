package lab.sweep

import kotlinx.serialization.Serializable
import lab.bench.host.CpuSplit
import lab.experiment.ExperimentManifest
import lab.support.EngineEntry
import lab.support.Provenance
import lab.support.ServerEntry

/** `manifest.json` of a `make sweep` run, beside its `sweep.csv` and `memory.csv`: what ran, on what, and what failed. */
@Serializable
data class SweepManifest(
    override val provenance: Provenance,
    /** The version of run-folder.json that sweep.csv and memory.csv were written in. */
    val runFolderFormat: Int,
    /** The JDK the servers ran on ([Provenance.jdk] is the harness's). */
    val serverJdk: Provenance.Jdk,
    val jvmFlags: List<String>,
    val cpuSplit: CpuSplit?,
    val settings: Settings,
    /** wrk's version line, as it prints it. */
    val wrk: String,
    val servers: List<String>,
    /** Each server as servers.json declared it when the run started; an arm (`server:change`) with the changes it ran without. */
    val catalogue: List<ServerEntry> = emptyList(),
    /** The engines of [catalogue]'s servers, with what the lab changed in each. */
    val engines: Map<String, EngineEntry> = emptyMap(),
    /**
     * The concurrencies each workload was swept to, and what stopped it: a step is left out when a
     * process of it would need more open files than [Settings.openFilesLimit] allows.
     */
    val highestConcurrency: Map<String, Int>,
    val passes: List<Pass> = emptyList(),
    /** One sentence for each server's workload in a pass that ended early; its steps until then are in sweep.csv. */
    override val problems: List<String> = emptyList(),
) : ExperimentManifest {
    @Serializable
    data class Settings(
        val workloads: List<String>,
        val concurrencies: List<Int>,
        val delayMs: Long,
        val warmupSeconds: Int,
        /** The workload's warm-up before its first step lasts until the JIT settles (SweepPass.JIT_SETTLED_SHARE), at most this. */
        val codeWarmupMaxSeconds: Int,
        val seconds: Int,
        val passes: Int,
        val heapMb: Int,
        val wrkTimeoutSeconds: Int,
        val openFilesLimit: Long,
        /** The limit [openFilesLimit] is: named so a reader knows which one stops the sweep. */
        val openFilesLimitSource: String,
        /** JFR sampled each step's window (lab.bench.collect.JfrProfile), and its sampler's CPU is in the server's. */
        val jfrProfile: Boolean = false,
        /** The most threads a server with a bounded pool was let start (SweepSetup.poolThreads); absent in sweeps before it was set. */
        val poolThreads: Int? = null,
    )

    @Serializable
    data class Pass(
        val pass: Int,
        val server: String,
        val workload: String,
        val status: String,
        val seconds: Double,
        val reason: String? = null,
    )
}
