package lab.experiment

import kotlinx.serialization.KSerializer
import kotlinx.serialization.builtins.ListSerializer
import kotlinx.serialization.builtins.serializer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import lab.support.Children
import lab.support.Provenance
import lab.support.RunFolder
import java.io.File

/**
 * One run of an experiment, from its folder to its end. Its folder is `results/<time>-<kind>/`; its `manifest.json` is
 * rewritten whole ([RunFolder.writeWhole]) each time the run records something ([record], [problem]), says `running` from the
 * start, and `incomplete` if the run is stopped before its end (Ctrl-C, SIGTERM: [Children]'s shutdown hook). Every
 * experiment ends the same way ([end]).
 */
class ExperimentRun<M : ExperimentManifest> private constructor(
    /** How the user asked for the run (`make floor`): the first words of each line it says of a problem. */
    private val label: String,
    val folder: File,
    private val serializer: KSerializer<M>,
    first: M,
) {
    /** The manifest as last recorded. */
    @Volatile
    var current: M = first
        private set

    init {
        write(first)
        Children.beforeStop {
            if (current.provenance.status == Provenance.RUNNING) stop()
        }
    }

    /** Records [change] of the manifest at once; returns the new one. */
    fun record(change: (M) -> M): M = update(change)

    /** Records one thing that went wrong, in a sentence; the run goes on. */
    fun problem(sentence: String): M = update { it.with(PROBLEMS, it.problems + sentence) }

    /**
     * Ends the run: the manifest says `complete`, or `failed` where a problem was recorded; each problem is a line on stderr,
     * then the folder's path on stdout; a run with problems throws [ExperimentFailed] with [summary] of them, and exits 1.
     */
    fun end(summary: (problems: List<String>) -> String) {
        val problems = update {
            it.with(PROVENANCE, it.provenance.ended(if (it.problems.isEmpty()) Provenance.COMPLETE else Provenance.FAILED))
        }
            .problems
        problems.forEach { System.err.println("$label: $it") }
        println("run folder: ${folder.path}")
        if (problems.isNotEmpty()) throw ExperimentFailed(summary(problems))
    }

    /** Ends the run early for a reason that is no one part's failure (a load generator lost), after [change]: `incomplete`. */
    fun stop(change: (M) -> M = { it }) {
        update { change(it).run { with(PROVENANCE, provenance.ended(Provenance.INCOMPLETE)) } }
        System.err.println("stopped: ${folder.path} is marked incomplete")
    }

    @Synchronized
    private fun update(change: (M) -> M): M {
        current = change(current)
        write(current)
        return current
    }

    private fun write(manifest: M) = RunFolder.writeWhole(File(folder, MANIFEST), JSON.encodeToString(serializer, manifest))

    private fun M.with(property: String, provenance: Provenance) = with(
        property,
        JSON.encodeToJsonElement(Provenance.serializer(), provenance),
    )

    private fun M.with(property: String, problems: List<String>) =
        with(property, JSON.encodeToJsonElement(ListSerializer(String.serializer()), problems))

    /** This manifest with one of the header's properties ([PROVENANCE], [PROBLEMS]) in place of its own, through its serializer. */
    private fun M.with(property: String, value: JsonElement): M {
        val recorded = JSON.encodeToJsonElement(serializer, this).jsonObject
        return JSON.decodeFromJsonElement(serializer, JsonObject(recorded + (property to value)))
    }

    companion object {
        const val MANIFEST = "manifest.json"
        private const val PROVENANCE = "provenance"
        private const val PROBLEMS = "problems"
        private val JSON = Json { prettyPrint = true }

        /** A new run folder `<kind>` in [resultsDir], its manifest begun as [first]. */
        fun <M : ExperimentManifest> start(label: String, resultsDir: File, kind: String, serializer: KSerializer<M>, first: M) =
            ExperimentRun(label, RunFolder.create(resultsDir, kind), serializer, first)
    }
}

/** A run that recorded problems: its other figures are in its folder; exit code 1. */
class ExperimentFailed(message: String) : IllegalStateException(message)
