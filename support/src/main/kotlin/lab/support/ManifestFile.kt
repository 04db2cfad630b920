package lab.support

import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import java.io.File

/** A run's manifest: it begins with the run's [Provenance], whatever else its kind of run records. */
interface RunManifest<M : RunManifest<M>> {
    val provenance: Provenance

    /** This manifest with [provenance] in place of its own. */
    fun with(provenance: Provenance): M
}

/**
 * A run folder's `manifest.json`, rewritten whole (see [RunFolder.writeWhole]) each time the run
 * records something. It says `running` from the start; if the program is stopped before [end]
 * (Ctrl-C, SIGTERM), [Children]'s shutdown hook marks it `incomplete` and [onStopped] runs.
 */
class ManifestFile<M : RunManifest<M>>(
    private val file: File,
    private val serializer: KSerializer<M>,
    first: M,
    onStopped: () -> Unit = {},
) {
    @Volatile
    var current: M = first
        private set

    init {
        write(first)
        Children.beforeStop {
            if (current.provenance.status == Provenance.RUNNING) {
                write(current.with(current.provenance.ended(Provenance.INCOMPLETE)))
                onStopped()
            }
        }
    }

    /** Records [change] of the current manifest; returns the new one. */
    @Synchronized
    fun update(change: (M) -> M): M {
        current = change(current)
        write(current)
        return current
    }

    /** Records that the run ended with [status] now. */
    fun end(status: String): M = update { it.with(it.provenance.ended(status)) }

    @Synchronized
    private fun write(manifest: M) = RunFolder.writeWhole(file, JSON.encodeToString(serializer, manifest))

    private companion object {
        val JSON = Json { prettyPrint = true }
    }
}
