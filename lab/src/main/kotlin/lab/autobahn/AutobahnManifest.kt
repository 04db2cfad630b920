package lab.autobahn

import kotlinx.serialization.Serializable
import lab.bench.host.CpuSplit
import lab.experiment.ExperimentManifest
import lab.support.EngineEntry
import lab.support.Provenance
import lab.support.ServerEntry

/** `manifest.json` of a `make autobahn-perf` run, beside a folder of each pass with wstest's own `index.json`. */
@Serializable
data class AutobahnManifest(
    override val provenance: Provenance,
    /** The run folder format's version; this folder's files are wstest's own (index.json) and this manifest. */
    val runFolderFormat: Int,
    /** wstest's version lines, as `wstest -a` prints them. */
    val wstest: String,
    /** The Autobahn cases run, as wstest takes them ("9.*"). */
    val cases: List<String>,
    val passes: Int,
    /** The seed of each pass's order of arms. */
    val passSeed: Long,
    /** The largest frame and message every server takes here (`--max-frame-bytes`): section 9 sends 16 MiB. */
    val maxFrameBytes: Int,
    /** The JDK the servers ran on ([Provenance.jdk] is the harness's). */
    val serverJdk: Provenance.Jdk,
    val jvmFlags: List<String>,
    val cpuSplit: CpuSplit?,
    val arms: List<Arm>,
    /** What each arm's server is, as servers.json declared it when the run started. */
    val catalogue: List<ServerEntry>,
    /** The engines of [catalogue]'s servers, with the lab's changes to each (an arm may run without some: [Arm.asShipped]). */
    val engines: Map<String, EngineEntry>,
    val passOrder: List<Pass> = emptyList(),
    val outcomes: List<Outcome> = emptyList(),
    /** One sentence for each pass that failed: its folder and why. */
    override val problems: List<String> = emptyList(),
) : ExperimentManifest {
    @Serializable
    data class Arm(
        val name: String,
        val server: String,
        val asShipped: List<String>,
        /** The alternatives the arm ran, each in place of a change of [asShipped] (servers.json's engines). */
        val alternatives: List<String> = emptyList(),
    )

    @Serializable
    data class Pass(val arm: String, val pass: Int, val folder: String)

    @Serializable
    data class Outcome(val arm: String, val pass: Int, val folder: String, val status: String, val reason: String?, val wallSeconds: Double)
}
