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
 * message is the largest section 1 sends, and the default bound. Each server and its wstest get
 * two of the host's CPUs to themselves (so on a host of two, one server at a time): wstest fails
 * most cases whose echo is a second late, which four servers and four wstests sharing two cores
 * could make happen. About 80 s of `make test` here.
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

    /** Each server's verdicts, by case id ("5.19"), from one run of the suite; a run that failed fails every test that asks. */
    val verdicts: Map<String, Map<String, Verdict>> get() = run.getOrThrow()

    // Held once, failure included: a lazy value whose computation throws is computed again at the next ask.
    private val run: Result<Map<String, Map<String, Verdict>>> by lazy { runCatching { runAll() } }

    /** The longest one batch of servers may take over its cases. */
    private const val BATCH_TIMEOUT_MINUTES = 3L

    /** Servers whose cases run at once: a server and its wstest to each two CPUs. */
    private val AT_ONCE = maxOf(1, Runtime.getRuntime().availableProcessors() / 2)

    private val wstestPath: String
        get() = System.getenv("LAB_WSTEST") ?: error("set LAB_WSTEST to setup/autobahn.sh's wstest; `make test` does")
    private val reports = File(System.getProperty("lab.autobahn") ?: "target/autobahn")

    private fun runAll(): Map<String, Map<String, Verdict>> {
        // Read before any server starts: without it there is nothing to run.
        val wstest = wstestPath
        return Servers.all.chunked(AT_ONCE).flatMap { batch -> runBatch(wstest, batch).toList() }.toMap()
    }

    private fun runBatch(wstest: String, names: List<String>): Map<String, Map<String, Verdict>> {
        val servers = names.associateWith { Catalogue.named(it).start() }
        try {
            val runs = servers.map { (name, server) -> name to start(wstest, name, server) }
            val deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(BATCH_TIMEOUT_MINUTES)
            return runs.associate { (name, run) -> name to finish(name, run, deadline) }
        } finally {
            servers.values.forEach { it.close() }
        }
    }

    private fun start(wstest: String, name: String, server: LabProcess): Process {
        val folder = File(reports, name).apply { deleteRecursively() }.apply { mkdirs() }
        val spec = FuzzingClientSpec.write(folder, name, server.baseUrl, SECTIONS + OFFER_CASES)
        return Children.start(
            listOf(wstest, "-m", "fuzzingclient", "-s", spec.absolutePath),
            File(folder, "wstest.log"),
            directory = folder,
        )
    }

    private fun finish(name: String, run: Process, deadlineNs: Long): Map<String, Verdict> {
        val folder = File(reports, name)
        if (!run.waitFor((deadlineNs - System.nanoTime()).coerceAtLeast(0), TimeUnit.NANOSECONDS)) {
            Children.stop(run, graceSeconds = 0)
            error("wstest against $name took over $BATCH_TIMEOUT_MINUTES minutes; see ${folder.path}/wstest.log")
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
