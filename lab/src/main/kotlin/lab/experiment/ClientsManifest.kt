package lab.experiment

import kotlinx.serialization.Serializable
import lab.bench.Manifest

/**
 * `manifest.json` of a `make clients` run: what ran, on what, with which settings, and how it
 * ended (`running`, then `complete`, `failed` naming what failed, or `incomplete` after Ctrl-C).
 */
@Serializable
data class ClientsManifest(
    val status: String,
    val command: String,
    val startedAt: String,
    val finishedAt: String? = null,
    val host: Manifest.Host,
    val jdk: Manifest.Jdk,
    /** The flags of the servers and of the client probe's JVM alike. */
    val jvmFlags: List<String>,
    val gitCommit: String,
    val gitDirty: Boolean,
    val curlVersion: String,
    val settings: Settings,
    /** What each client's call holds while its answer is due ([lab.clients.ClientKind.waits]), for the report. */
    val clientWaits: Map<String, String>,
    val stubUrl: String? = null,
    val servers: Map<String, String> = emptyMap(),
    /** One sentence for each thing that went wrong: a server that died, a probe that failed. */
    val problems: List<String> = emptyList(),
) {
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
