package lab.support

import java.io.File

/**
 * Whether the jars a run starts were packaged after every source they are built from. A manifest names the checkout's
 * commit as the measured code's, which is true only then: make decides whether to build by its stamp
 * (`.tools/jars.stamp`), and a stamp touched without a build once let a `make bench` run the jars of an older commit
 * under the newer one's name (docs/JOURNAL.md, "A bench on stale jars (2026-12-03)").
 */
object BuiltJars {
    /** The jar of the lab's own programs: the harness of every experiment. */
    const val LAB_JAR = "lab/target/lab.jar"

    /**
     * A source that changed after a jar of [jars] built from it was written, the newest such; null when every jar is newer
     * than all its sources. A jar `<module>/target/…` is built from the root pom and from its module's pom and `src/main`,
     * and from those of each module of the build it depends on, however indirectly (a dependency whose artifactId is
     * another module's name). A jar not there yet is passed over: the run says it is missing.
     */
    fun sourceNewerThan(repo: File, jars: List<File>): File? {
        val rootPom = File(repo, "pom.xml").takeIf { it.isFile }?.readText().orEmpty()
        val modules = MODULE.findAll(rootPom).map { it.groupValues[1] }.toSet()
        return jars.filter { it.isFile }.mapNotNull { jar ->
            val module = jar.relativeTo(repo).invariantSeparatorsPath.substringBefore('/')
            sources(repo, builtFrom(repo, module, modules))
                .filter { it.lastModified() > jar.lastModified() }
                .maxByOrNull { it.lastModified() }
        }.maxByOrNull { it.lastModified() }
    }

    /**
     * The one-line refusal for a run of [servers] from [repo]'s checkout (the harness, the stub and each server's jar), or
     * null when its jars are this checkout's.
     */
    fun refusalForRun(repo: File, servers: List<ServerEntry>): String? {
        val jars = listOf(File(repo, LAB_JAR), File(repo, Stub.JAR)) + servers.map { it.jarIn(repo) }
        return sourceNewerThan(repo, jars)?.let { refusal(repo, it) }
    }

    /** The one-line refusal for a [source] newer than the jars, naming what to run instead. */
    fun refusal(repo: File, source: File): String =
        "${source.relativeTo(repo)} changed after the jars were built, so they are not this checkout's code: " +
            "run `make clean build`, then this command again"

    /** [module] and every module of [modules] its pom depends on, directly or through another. */
    private fun builtFrom(repo: File, module: String, modules: Set<String>): Set<String> {
        val found = mutableSetOf<String>()
        val next = ArrayDeque(listOf(module).filter { it in modules })
        while (next.isNotEmpty()) {
            val current = next.removeFirst()
            if (!found.add(current)) continue
            val pom = File(repo, "$current/pom.xml").takeIf { it.isFile }?.readText().orEmpty()
            next += ARTIFACT.findAll(pom).map { it.groupValues[1] }.filter { it in modules && it !in found }
        }
        return found
    }

    private fun sources(repo: File, modules: Set<String>): Sequence<File> =
        sequenceOf(File(repo, "pom.xml")).filter { it.isFile } + modules.asSequence().flatMap { module ->
            sequenceOf(File(repo, "$module/pom.xml")).filter { it.isFile } +
                File(repo, "$module/src/main").takeIf { it.isDirectory }?.walkTopDown()?.filter { it.isFile }.orEmpty()
        }

    private val MODULE = Regex("<module>\\s*([^<\\s]+)\\s*</module>")
    private val ARTIFACT = Regex("<artifactId>\\s*([^<\\s]+)\\s*</artifactId>")
}
