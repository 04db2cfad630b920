package lab.audit

import com.github.ajalt.clikt.core.CliktCommand
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
import lab.support.LabMain
import lab.support.ManifestFile
import lab.support.NotAJdk
import lab.support.Provenance
import lab.support.RunFolder
import lab.support.Stub
import lab.support.serversOption
import java.io.File
import kotlin.system.exitProcess

private class AuditCommand : CliktCommand(name = "audit-pinning") {
    override fun help(
        context: Context,
    ) = "Springs every pinning trap and walks the request paths on each server and JDK, and reports what pinned."

    private val servers by serversOption()
    private val jdks by option("--jdk", help = "a JDK home the servers run on; repeat for each JDK").file().multiple(required = true)
    private val repo by option("--repo", help = "the lab's repository root").file().default(File("."))
    private val resultsDir by option("--results", help = "where run folders go").file().default(File("results"))
    private val requests by option("--requests", help = "requests to each trap, sent at once").int().restrictTo(1..200).default(8)
    private val blockMs by option("--block-ms", help = "how long each trap blocks").long().restrictTo(1L..1_000L).default(50)

    override fun run() {
        val homes = jdks.map { home ->
            try {
                Provenance.Jdk.read(home)
            } catch (e: NotAJdk) {
                throw UsageError("${e.message}; setup/jdk.sh 21 or 25 prints one")
            }
        }
        val dir = RunFolder.create(resultsDir, "pinning")
        val provenance = Provenance.start(Provenance.thisCommand("audit-pinning"), Provenance.Jdk.current(), repo)
        val manifest = ManifestFile(
            File(dir, "manifest.json"),
            AuditManifest.serializer(),
            AuditManifest(provenance, servers.map { it.name }, homes, requests, blockMs),
        )
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
        val violations = cells.filter { it.mustNotPin && it.pinned }
        manifest.end(if (violations.isEmpty()) Provenance.COMPLETE else Provenance.FAILED)
        if (violations.isNotEmpty()) {
            System.err.println(
                "audit: ${violations.size} path(s) that must not pin did: " +
                    violations.joinToString { "${it.subject} on ${it.server} JDK ${it.jdk}" },
            )
            exitProcess(1)
        }
    }

    private fun startStub(dir: File): String {
        val java = ProcessHandle.current().info().command().orElse("java")
        return Stub.start(java, repo, latencyMs = 5, dir)?.url
            ?: throw UsageError("the stub did not start; see ${File(dir, "stub.log").path}")
    }
}

// The children (the stub) are stopped by Children's shutdown hook as the JVM exits.
fun main(args: Array<String>): Unit = LabMain.exit("make audit-pinning", AuditCommand(), args, failure = { it is IllegalStateException })
