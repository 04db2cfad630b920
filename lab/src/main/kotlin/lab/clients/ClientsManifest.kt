package lab.clients

import kotlinx.serialization.Serializable
import lab.experiment.ExperimentManifest
import lab.support.Provenance

/**
 * `manifest.json` of a `make clients` run: what ran, on what, with which settings, and how it
 * ended (`running`, then `complete`, `failed` naming what failed, or `incomplete` after Ctrl-C).
 */
@Serializable
data class ClientsManifest(
    /** Where and from what the run came, and how it ended; [Provenance.jdk] ran the servers and the clients alike. */
    override val provenance: Provenance,
    /** The flags of the servers and of the client probe's JVM alike. */
    val jvmFlags: List<String>,
    val curlVersion: String,
    val settings: Settings,
    /** What each client's call holds while its answer is due ([lab.clients.probe.ClientKind.waits]), for the report. */
    val clientWaits: Map<String, String>,
    val stubUrl: String? = null,
    val servers: Map<String, String> = emptyMap(),
    /** One sentence for each thing that went wrong: a server that died, a probe that failed. */
    override val problems: List<String> = emptyList(),
) : ExperimentManifest {
    @Serializable
    data class Settings(
        val servers: List<String>,
        val clients: List<String>,
        val requests: List<Int>,
        val delayMs: Long,
        val repeats: Int,
        val sizesBytes: List<Long>,
        val downloadRepeats: Int,
        val streams: Int,
        val streamBytes: Long,
        val seed: Long,
    )
}
