package lab.audit

import com.github.ajalt.clikt.core.Context
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.multiple
import com.github.ajalt.clikt.parameters.options.option
import com.github.ajalt.clikt.parameters.types.file
import com.github.ajalt.clikt.parameters.types.int
import com.github.ajalt.clikt.parameters.types.long
import com.github.ajalt.clikt.parameters.types.restrictTo
import kotlinx.serialization.json.Json
import lab.experiment.ExperimentMain
import lab.support.Stub
import lab.support.serversOption
import java.io.File

private class AuditCommand : ExperimentMain("audit-pinning") {
    override fun help(
        context: Context,
    ) = "Springs every pinning trap and walks the request paths on each server and JDK, and reports what pinned."

    private val servers by serversOption()
    private val homes by option("--jdk", help = "a JDK home the servers run on; repeat for each JDK").file().jdk().multiple(required = true)
    private val requests by option("--requests", help = "requests to each trap, sent at once").int().restrictTo(1..200).default(8)
    private val blockMs by option("--block-ms", help = "how long each trap blocks").long().restrictTo(1L..1_000L).default(50)

    override fun run() {
        val run =
            startRun("pinning", AuditManifest.serializer(), AuditManifest(provenance(), servers.map { it.name }, homes, requests, blockMs))
        val dir = run.folder
        println("pinning audit: ${servers.joinToString { it.name }} on JDK ${homes.joinToString { it.version }}, into ${dir.path}")
        val stub = startStub(dir)
        val cells = homes.flatMap { jdk ->
            servers.flatMap { server ->
                println("${server.name} on JDK ${jdk.version}: springing each trap with $requests requests at once")
                ServerProbe(server, File(jdk.home), jdk.feature, repo, stub, dir, requests, blockMs).run()
            }
        }
        val header = "Servers ${servers.joinToString { it.name }}; JDKs ${homes.joinToString {
            "${it.version} (${it.home})"
        }}; $requests requests at once a trap, each blocking $blockMs ms; run folder `${dir.name}`."
        File(dir, "audit.json").writeText(
            Json {
                prettyPrint = true
            }.encodeToString(kotlinx.serialization.builtins.ListSerializer(AuditCell.serializer()), cells),
        )
        val markdown = AuditReport.markdown(cells, header)
        File(dir, "audit.md").writeText(markdown)
        println(markdown.substringBefore("## The fix"))
        println("audit: ${File(dir, "audit.md").path}")
        cells.filter {
            it.mustNotPin && it.pinned
        }.forEach { run.problem("${it.subject} on ${it.server} JDK ${it.jdk} must not pin, and did") }
        run.end { problems -> "${problems.size} path(s) that must not pin did" }
    }

    private fun startStub(dir: File): String {
        val java = ProcessHandle.current().info().command().orElse("java")
        return Stub.start(java, repo, latencyMs = 5, dir)?.url
            ?: throw UsageError("the stub did not start; see ${File(dir, "stub.log").path}")
    }
}

// The children (the stub) are stopped by Children's shutdown hook as the JVM exits.
fun main(args: Array<String>): Unit = AuditCommand().main(args)
