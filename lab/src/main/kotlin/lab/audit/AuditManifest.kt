package lab.audit

import kotlinx.serialization.Serializable
import lab.experiment.ExperimentManifest
import lab.support.Provenance

/**
 * `manifest.json` of a `make audit-pinning` run, beside its findings (`audit.json`, `audit.md`).
 * The audit runs the servers on several JDKs, so [Provenance.jdk] is the one that ran the audit
 * and read the recordings; [serverJdks] are those the servers ran on.
 */
@Serializable
data class AuditManifest(
    override val provenance: Provenance,
    val servers: List<String>,
    val serverJdks: List<Provenance.Jdk>,
    /** Requests sent at once to each trap, and how long each trap blocks. */
    val requestsPerTrap: Int,
    val blockMs: Long,
    /** One sentence for each path that must not pin and did (audit.md has every finding). */
    override val problems: List<String> = emptyList(),
) : ExperimentManifest
