package lab.conformance

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import lab.autobahn.FuzzingClientSpec
import lab.support.Catalogue
import lab.support.Children
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * One run of the Autobahn testsuite's own client (`wstest -m fuzzingclient`, the WebSocket
 * conformance suite's runner, installed by setup/autobahn.sh) against every server of the
 * catalogue, each started fresh with the lab's default limits, as the bench runs it: a 64 KiB
 * message is the largest section 1 sends, and the default bound. The servers run at once, each
 * with its own wstest, so the suite costs `make test` the slowest server's time, not the sum.
 *
 * The verdicts are read from the suite's `index.json`, not from wstest's exit code, which is 0
 * whatever the cases gave (and when it could not connect at all). Its HTML report stays beside
 * it, in conformance/target/autobahn/<server>/index.html.
 */
object AutobahnRun {
    /**
     * The sections held in `make test`: framing, pings and pongs, reserved bits and opcodes,
     * fragmentation, UTF-8, closing, and the auto-fragmented message of 10.1.1. Section 9 (large
     * messages and many frames) times echoes, and is a benchmark of its own; 12 and 13 are
     * permessage-deflate, which no server agrees to (see [OFFER_CASES]).
     */
    val SECTIONS = listOf("1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "10.*")

    /** The first case of each compression section: a server that agrees to no extension gets UNIMPLEMENTED on both. */
    val OFFER_CASES = listOf("12.1.1", "13.1.1")

    /** What wstest says of a case: of the messages echoed ([behavior]), and of the closing handshake ([behaviorClose]). */
    data class Verdict(val behavior: String, val behaviorClose: String)

    /** Each server's verdicts, by case id ("5.19"), from one run of every server at once. */
    val verdicts: Map<String, Map<String, Verdict>> by lazy { runAll() }

    private const val RUN_TIMEOUT_MINUTES = 5L

    private val wstest: String
        get() = System.getenv("LAB_WSTEST") ?: error("set LAB_WSTEST to setup/autobahn.sh's wstest; `make test` does")
    private val reports = File(System.getProperty("lab.autobahn") ?: "target/autobahn")

    private fun runAll(): Map<String, Map<String, Verdict>> {
        val servers = Servers.all.associateWith { Catalogue.named(it).start() }
        try {
            val runs = servers.map { (name, server) -> name to start(name, server) }
            return runs.associate { (name, run) -> name to finish(name, run) }
        } finally {
            servers.values.forEach { it.close() }
        }
    }

    private fun start(name: String, server: LabProcess): Process {
        val folder = File(reports, name).apply { deleteRecursively() }.apply { mkdirs() }
        val spec = FuzzingClientSpec.write(folder, name, server.baseUrl, SECTIONS + OFFER_CASES)
        return Children.start(
            listOf(wstest, "-m", "fuzzingclient", "-s", spec.absolutePath),
            File(folder, "wstest.log"),
            directory = folder,
        )
    }

    private fun finish(name: String, run: Process): Map<String, Verdict> {
        val folder = File(reports, name)
        if (!run.waitFor(RUN_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            Children.stop(run, graceSeconds = 0)
            error("wstest against $name took over $RUN_TIMEOUT_MINUTES minutes; see ${folder.path}/wstest.log")
        }
        val index = File(folder, FuzzingClientSpec.INDEX)
        check(index.isFile) { "wstest wrote no index.json for $name (exit code ${run.exitValue()}); see ${folder.path}/wstest.log" }
        val byAgent = Json.parseToJsonElement(index.readText()).jsonObject
        val cases = byAgent[name]?.jsonObject ?: error("$index has no results for $name")
        return cases.mapValues { (_, case) ->
            val fields = case.jsonObject
            Verdict(fields.getValue("behavior").jsonPrimitive.content, fields.getValue("behaviorClose").jsonPrimitive.content)
        }
    }
}
