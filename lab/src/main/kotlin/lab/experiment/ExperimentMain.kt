package lab.experiment

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.parameters.options.NullableOption
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.file
import kotlinx.serialization.KSerializer
import lab.support.LabMain
import lab.support.NotAJdk
import lab.support.Provenance
import java.io.File

/**
 * The skeleton of every experiment's program (`make bench`, `sweep`, `floor`, `autobahn-perf`, `clients`, `audit-pinning`): the
 * options each takes to find the repository and where its run goes, its run folder ([startRun], [ExperimentRun]) and the header
 * of its manifest ([provenance]), and how it exits ([main]). What it runs is its own ([run]).
 *
 * The exit codes, the same for every experiment: 0, the run finished; 1, it recorded a problem ([ExperimentFailed]) or failed
 * in a way it names (an [IllegalStateException]); 2, bad input ([BadInput], a JDK that is not one, or one Clikt refused), said
 * in one line that names what to do, before any run folder is made.
 */
abstract class ExperimentMain(name: String) : CliktCommand(name) {
    protected val repo by option("--repo", help = "the lab's repository root").file().default(File("."))
    protected val resultsDir by option("--results", help = "where run folders go").file().default(File("results"))

    /** How the user asks for this experiment, `make <name>`: the first words of each line it says of bad input or a problem. */
    val label: String get() = "make $commandName"

    /** The header of this run's manifest, from the repository's checkout: [jdk] is the one the measured code runs on. */
    protected fun provenance(jdk: Provenance.Jdk = Provenance.Jdk.current(), sourceCommit: String? = null, sourceDirty: Boolean = false) =
        Provenance.start(Provenance.thisCommand(label), jdk, repo, sourceCommit, sourceDirty)

    /** A new run folder `results/<time>-<kind>/`, its manifest begun as [first]. */
    protected fun <M : ExperimentManifest> startRun(kind: String, serializer: KSerializer<M>, first: M) =
        ExperimentRun.start(label, resultsDir, kind, serializer, first)

    /** A JDK home given as an option's value (`--jdk`), read from its release file: a folder that is no JDK of 21 or later is refused. */
    protected fun NullableOption<File, File>.jdk() = convert { home ->
        try {
            Provenance.Jdk.read(home)
        } catch (e: NotAJdk) {
            fail("${e.message}; setup/jdk.sh 21 or 25 prints one")
        }
    }

    /** Refuses the run before it starts, where a jar it needs was not built. */
    protected fun requireBuilt(jars: List<File>) {
        jars.firstOrNull { !it.isFile }?.let { throw BadInput("${it.path} is missing; run `make build` first") }
    }

    /** Parses [args], runs, and exits with the experiments' codes; the programs it started stop with it (lab.support.Children). */
    fun main(args: Array<String>): Nothing = LabMain.exit(
        label,
        this,
        args,
        badInput = { it is BadInput || it is NotAJdk },
        failure = { it is IllegalStateException },
    )
}

/** Input the run cannot start with (an option, a file, the host's CPUs), said in one line that names what to do: exit code 2. */
class BadInput(message: String) : Exception(message)
