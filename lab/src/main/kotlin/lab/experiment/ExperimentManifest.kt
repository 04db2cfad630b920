package lab.experiment

import lab.support.Provenance

/**
 * What every experiment's `manifest.json` holds besides its own facts: where and from what the run came and how it ended
 * ([provenance], first), and one sentence for each thing that went wrong while the run went on ([problems], last). A problem
 * is data: the run records it and goes on, so the rest of its figures stand, and it then ends `failed` ([ExperimentRun.end]).
 * [ExperimentRun] changes these two through the manifest's own serializer, so no manifest says how.
 */
interface ExperimentManifest {
    val provenance: Provenance
    val problems: List<String>
}
