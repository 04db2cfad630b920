package lab.bench

import jdk.jfr.consumer.RecordingFile
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import lab.bench.collect.JfrCollector
import lab.bench.folder.RunFolderFormat
import lab.bench.load.ClosedLoopStep
import lab.bench.load.CurveSearch
import lab.bench.load.Profile
import lab.bench.load.VegetaCurve
import lab.handlers.PinTrap
import lab.support.Catalogue
import lab.support.ReadyLine
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.File
import java.net.URI
import java.util.concurrent.TimeUnit
import java.util.zip.GZIPInputStream
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * `make bench PROFILE=smoke`, end to end: the real harness drives every real server of the catalogue with
 * the real k6 and streams real JFR, once, and every test here reads the run folder it left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 9, unit = TimeUnit.MINUTES)
class SmokeRunIT {
    private val harness = Harness("smoke")
    private lateinit var runDir: File
    private lateinit var manifest: Manifest
    private lateinit var listeners: ListenerWatch

    @BeforeAll
    fun runSmokeProfile() {
        val process = harness.start("--profile", "smoke", "--k6-dashboard")
        listeners = ListenerWatch(process.toHandle()).start()
        // About a minute a server (the smoke profile's 55 s of load, ProfileTest), five servers: bounded with room.
        val exitCode = harness.await(process, minutes = 8)
        assertEquals(0, exitCode, "the harness failed; see ${harness.log}:\n${harness.log.readText().takeLast(3000)}")
        runDir = harness.runDir()
        manifest = harness.manifest(runDir)
    }

    @Test
    fun `the manifest says complete and describes the run`() {
        assertEquals("complete", manifest.provenance.status)
        assertEquals(Catalogue.names, manifest.servers)
        assertEquals(Catalogue.servers, manifest.catalogue)
        assertEquals(manifest.servers.toSet(), manifest.outcomes.map { it.server }.toSet())
        assertEquals(manifest.passOrder, manifest.outcomes.map { it.folder }, "the passes ran in the order the manifest gives")
        assertTrue(manifest.passSeed != null && manifest.jsonRateChoice!!.startsWith("the profile's"), "${manifest.jsonRateChoice}")
        assertTrue(manifest.outcomes.all { it.ok }, "${manifest.outcomes}")
        assertTrue(manifest.jvmFlags.containsAll(listOf("-Xms512m", "-Xmx512m", "-XX:+UseZGC")), "${manifest.jvmFlags}")
        assertTrue(manifest.k6Version.startsWith("k6 v1.8.1"), manifest.k6Version)
        assertTrue(manifest.provenance.gitCommit.matches(Regex("[0-9a-f]{40}")), manifest.provenance.gitCommit)
        assertTrue(manifest.provenance.finishedAt != null)
        // The host's CPUs, not the load's share that the harness pins itself to before it writes the header.
        manifest.cpuSplit?.let {
            assertTrue(manifest.provenance.host.cpus >= it.serverCpus.size + it.loadCpus.size, "${manifest.provenance.host}")
        }
    }

    @Test
    fun `no process of the run listens beyond loopback, and each server only on its own port`() {
        val seen = listeners.listeners()
        assertTrue(listeners.samples >= 10, "the watch read ss only ${listeners.samples} times")
        assertEquals(emptyList(), seen.filterNot { it.onLoopback }, "listening beyond loopback")
        for (pass in manifest.outcomes.map { it.folder!! }) {
            val log = File(runDir, "$pass/server.log")
            val pid = assertNotNull(harness.readyPid(log), "no READY pid in $log")
            val port = URI(log.useLines { lines -> lines.firstNotNullOf(ReadyLine::urlIn) }).port
            assertEquals(setOf("tcp" to port), seen.filter { it.pid == pid }.map { it.protocol to it.port }.toSet(), "$pass (pid $pid)")
        }
    }

    @Test
    fun `every server records its JFR with the run's flags and leaves no chunks behind`() {
        assertTrue(manifest.jfrFlags.any { it.startsWith("-XX:StartFlightRecording") }, "${manifest.jfrFlags}")
        assertTrue(File(runDir, "lab.jfc").isFile, "the run's JFR settings are missing")
        for (pass in manifest.outcomes.map { it.folder!! }) {
            assertTrue(!File(runDir, "$pass/jfr-repository").exists(), "$pass kept its JFR repository")
        }
    }

    @Test
    fun `every server folder holds the raw recording, the series, the k6 results and the log`() {
        for (server in manifest.outcomes.map { it.folder!! }) {
            for (file in listOf(
                "server.jfr",
                "jfr-series.csv",
                "proc.csv",
                "pinned.csv",
                "k6-summary.json",
                "k6-metrics.csv.gz",
                "server.log",
                "stub.log",
                "cpu.csv",
                "memory.csv",
                "histogram.csv",
                "outcome.json",
                "k6-dashboard.html",
            )) {
                assertTrue(File(runDir, "$server/$file").isFile, "$server/$file is missing")
            }
        }
        assertEquals(runDir.canonicalFile, File(harness.results, "latest").canonicalFile, "results/latest points at the newest run")
    }

    @Test
    fun `every series is written in the declared run-folder format, which the manifest names`() {
        assertEquals(RunFolderFormat.version, manifest.runFolderFormat)
        for (outcome in manifest.outcomes) {
            val server = outcome.folder!!
            // vegeta's series only where the profile gives it the curve (the smoke profile does not), the search's where it searches;
            // the wire's where it read packets.
            val expected = RunFolderFormat.declaration.series.keys
                .filter { it != VegetaCurve.FILE || manifest.profile.curveGenerator == Profile.VEGETA }
                .filter { it != CurveSearch.FILE || manifest.profile.curveSearchSteps > 0 }
                .filter { it != ClosedLoopStep.FILE || manifest.profile.jsonFullStepSeconds > 0 }
                .filter { it != "wire.csv" || outcome.marks.none { mark -> mark.startsWith("no wire latency") } }
            for (file in expected.map { File(runDir, "$server/$it") }) {
                assertTrue(file.isFile, "$server/${file.name} is missing")
                val text = if (file.name.endsWith(".gz")) GZIPInputStream(file.inputStream()).bufferedReader() else file.bufferedReader()
                assertEquals(RunFolderFormat.columns(file.name).joinToString(","), text.use { it.readLine() }, "$server/${file.name}")
            }
        }
    }

    @Test
    fun `each pass's k6 dashboard was live on loopback, named in the progress lines, and kept whole`() {
        val progress = harness.log.readLines()
        for (pass in manifest.outcomes.map { it.folder!! }) {
            val urls = progress.filter {
                it.startsWith("$pass ")
            }.mapNotNull { Regex("""k6 live (\S+)""").find(it)?.groupValues?.get(1) }.toSet()
            val url = assertNotNull(urls.singleOrNull(), "$pass: one dashboard address in its progress lines, not $urls")
            assertTrue(url.matches(Regex("""http://127\.0\.0\.1:\d+""")), "$pass: $url")
            // k6 writes the export as it ends; a page cut short has no closing tag.
            assertTrue(File(runDir, "$pass/k6-dashboard.html").readText().trimEnd().endsWith("</html>"), "$pass: the export is not whole")
        }
    }

    @Test
    fun `every recording parses and holds RSS and heap events`() {
        for (server in manifest.outcomes.map { it.folder!! }) {
            val names = RecordingFile.readAllEvents(File(runDir, "$server/server.jfr").toPath()).map { it.eventType.name }.toSet()
            assertTrue("jdk.ResidentSetSize" in names, "$server: $names")
            assertTrue("jdk.GCHeapMemoryUsage" in names || "jdk.GCHeapSummary" in names, "$server: $names")
        }
    }

    @Test
    fun `each GC cycle in the series is one the recording holds, of its kind, cause and length`() {
        for (server in manifest.outcomes.map { it.folder!! }) {
            val recorded = RecordingFile.readAllEvents(File(runDir, "$server/server.jfr").toPath())
                .filter { it.eventType.name == "jdk.GarbageCollection" }
                .flatMap { gc ->
                    JfrCollector.cycleMetrics(gc.getString("name"), gc.getString("cause")).map { it to gc.duration.toNanos() / 1e9 }
                }
            val rows = File(runDir, "$server/jfr-series.csv").readLines().drop(1).map { it.split(',') }
                .filter { it[2].startsWith("gc_") && it[2].endsWith("_cycle_s") }
            val streamed = rows.map { it[2] to it[3].toDouble() }
            // The stream starts with the server's first flush, so it may miss the first cycles; it never makes one up.
            assertTrue(streamed.isNotEmpty(), "$server: no GC cycle in jfr-series.csv, ${recorded.size} in server.jfr")
            for ((metric, seconds) in streamed) {
                assertTrue(
                    recorded.any { (kind, length) -> kind == metric && Math.abs(length - seconds) < 1e-6 },
                    "$server: $metric of $seconds s is not in server.jfr: $recorded",
                )
            }
            // And a streamed major cycle that the recording gives as ZGC's warm-up is named so, at the same moment.
            val warmups = recorded.filter { it.first == WARMUP }.map { it.second }
            for ((at, metric, seconds) in rows.map { Triple(it[0], it[2], it[3].toDouble()) }) {
                if (metric != "gc_major_cycle_s" || warmups.none { Math.abs(it - seconds) < 1e-6 }) continue
                assertTrue(rows.any { it[0] == at && it[2] == WARMUP }, "$server: the warm-up cycle at $at s is not named $WARMUP")
            }
        }
    }

    @Test
    fun `the time series cover the whole load, phase by phase`() {
        val steadyPhases = listOf(
            "sockets-step-1",
            "sockets-step-${manifest.profile.socketSteps}",
            "json-warmup",
            "json",
            "dashboard-warmup",
            "dashboard",
        )
        // The series sample once a second (JFR's periodic events among them), so a phase of 1 s may fall between
        // two samples; every phase of 2 s or more holds one.
        val sampledPhases = manifest.timeline
            .filter { it.name in steadyPhases && it.toSeconds - it.fromSeconds >= 2 }
            .map { it.name }
        assertTrue(
            sampledPhases.containsAll(listOf("sockets-step-1", "json-warmup", "json", "dashboard")),
            "the smoke profile's phases are too short to check: $sampledPhases",
        )
        for (server in manifest.outcomes.map { it.folder!! }) {
            for (series in listOf("proc.csv", "jfr-series.csv", "load.csv")) {
                val phases = File(runDir, "$server/$series").readLines().drop(1).map { it.split(',')[1] }.toSet()
                for (phase in sampledPhases) {
                    assertTrue(phase in phases, "$server/$series has no $phase rows: $phases")
                }
            }
        }
    }

    @Test
    fun `each curve step's requests carry its phase, in its load generator's record and on the wire alike`() {
        val steps = manifest.timeline.filter { "-at-" in it.name }
        assertEquals(listOf("json-at-100", "json-at-200", "dashboard-at-20"), steps.map { it.name })
        for (outcome in manifest.outcomes) {
            val server = outcome.folder!!
            val byK6 = k6Requests(server).groupingBy { it.tag.removePrefix("endpoint=") }.eachCount()
            val droppedByK6 = k6DroppedIterations(server)
            val loadStartMs = outcome.loadStartEpochMs ?: fail("$server has no load start")
            // vegeta's record names each request's phase by the harness's clock, as the wire does.
            val byVegeta = vegetaRequests(server).groupingBy { it.phase }.eachCount()
            val wire = File(runDir, "$server/wire.csv").takeIf { it.isFile }?.readLines()?.drop(1)?.map { it.split(',') }
            for (step in steps) {
                val sent = (if (step.generator == Profile.VEGETA) byVegeta else byK6)[step.name] ?: 0
                val expected = step.ratePerSecond * (step.toSeconds - step.fromSeconds)
                // An iteration k6 had no free VU for is dropped, not sent (a cold server's /dashboard on its CPU's half, on a slow
                // day): it counts for the step. k6 stamps it with a whole second, so the step's edge seconds count whole.
                val dropped = if (step.generator == Profile.VEGETA) {
                    0
                } else {
                    val seconds = (loadStartMs + step.fromSeconds * 1000L) / 1000..(loadStartMs + step.toSeconds * 1000L - 1) / 1000
                    droppedByK6.count { it.scenario == step.endpoint && it.epochSecond in seconds }
                }
                assertTrue(
                    sent + dropped in (expected * 9 / 10)..(expected * 11 / 10),
                    "$server: ${step.name} had $sent requests and $dropped dropped iterations, not about $expected",
                )
                // The wire names a request's phase by the harness's clock, k6 by its own: the two agree but at a step's edges.
                wire?.count { it[1] == step.name && it[2] == step.endpoint }?.let { seen ->
                    assertTrue(
                        seen in (sent * 8 / 10)..(sent * 12 / 10),
                        "$server: the wire saw $seen ${step.name} requests, ${step.generator} sent $sent",
                    )
                }
            }
        }
    }

    @Test
    fun `k6 opened every socket and saw no failed check`() {
        for (server in manifest.outcomes.map { it.folder!! }) {
            val metrics = Json.parseToJsonElement(File(runDir, "$server/k6-summary.json").readText()).jsonObject["metrics"]!!.jsonObject
            fun value(metric: String, stat: String) = metrics[metric]?.jsonObject?.get("values")?.jsonObject?.get(stat)?.jsonPrimitive?.long
            assertEquals(0, value("checks", "fails"), "$server: failed checks")
            // The idle sockets, and as many again opened warm after the load.
            val planned = manifest.preflight.idleSockets.toLong() * (if (manifest.profile.warmSockets) 2 else 1)
            assertEquals(planned, value("lab_sockets_opened", "count"), "$server: sockets opened")
        }
    }

    @Test
    fun `every server's memory before the first socket is measured, with no socket open`() {
        for (outcome in manifest.outcomes) {
            assertTrue(outcome.marks.none { "before the first socket" in it }, "${outcome.folder}: ${outcome.marks}")
        }
    }

    @Test
    fun `the wire saw the json requests k6 had answered, each once, or the pass says why it could not`() {
        for (outcome in manifest.outcomes) {
            val server = outcome.folder!!
            if (!File(runDir, "$server/wire.csv").isFile) {
                // A harness without root or CAP_NET_RAW reads no packets, and says so.
                assertTrue(outcome.marks.any { it.startsWith("no wire latency") }, "$server: no wire.csv and no mark why: ${outcome.marks}")
                continue
            }
            // Every phase's /json requests: its warm-up, its steady phase and its curve steps (endpoint=json-at-200, ...), whichever
            // load generator sent them. wrk keeps no request's record: the full step's are set against its count apart (above), and
            // its last answers come a few ms into the next phase, /dashboard's settling.
            val k6Json = k6Requests(server).filter { it.status == "200" && it.tag.startsWith("endpoint=json") }
            val vegetaJson = vegetaRequests(server).filter { it.status == "200" && it.endpoint == "json" }
            val answered = k6Json.size + vegetaJson.size
            val full = manifest.timeline.filter { it.generator == Profile.WRK }.map { it.name }.toSet()
            val rows = File(runDir, "$server/wire.csv").readLines().drop(1).map { it.split(',') }
            val wire = rows.filter { it[2] == "json" && it[1] !in full && !it[1].startsWith("dashboard") }
            assertTrue(answered > 0, "$server: k6 had no /json request answered")
            assertTrue(wire.all { it[3].toDouble() > 0 }, "$server: a wire time that is not positive")
            assertTrue(wire.size <= answered, "$server: the wire saw ${wire.size} /json requests, more than k6's $answered")
            if (outcome.marks.none { it.startsWith("the wire capture dropped") }) {
                // A /json request its generator sent late, after its phase ended, is named by the wire for the next phase; where
                // that phase's rows are set apart above, it is not missed. After k6's steady phase, /dashboard's warm-up: every
                // /json row there is such a one. After the step before the full step, wrk's settling: what that step's rows lack.
                // After wrk's own phases, its late answers, never counted. Beyond them, the wire missed 1 of 7,506 in 2 of 24
                // passes of make bench with no packet counted dropped, not yet explained (docs/METHODS.md); more is a fault.
                fun sentIn(phase: String) = k6Json.count { it.tag == "endpoint=$phase" } + vegetaJson.count { it.phase == phase }
                val spilled = manifest.timeline.filter { it.name in full || it.name.startsWith("dashboard") }.sumOf { apart ->
                    val before = manifest.timeline.firstOrNull { it.toSeconds == apart.fromSeconds && it.endpoint == "json" }
                    when {
                        before == null || before.name in full -> 0
                        apart.name in full -> (sentIn(before.name) - wire.count { it[1] == before.name }).coerceAtLeast(0)
                        else -> rows.count { it[2] == "json" && it[1] == apart.name }
                    }
                }
                assertTrue(
                    answered - wire.size - spilled <= WIRE_MISSED_MAX,
                    "$server: the wire saw ${wire.size} of k6's $answered /json requests, $spilled of them sent late into a phase set apart",
                )
            }
        }
    }

    @Test
    fun `a server with a bounded pool is let start every thread the run can ask of it, and says so on its READY line`() {
        val bounded = manifest.catalogue.filter { it.traits.boundedPool }.map { it.name }.toSet()
        assertTrue(bounded.isNotEmpty(), "the catalogue has no server with a bounded pool")
        for (outcome in manifest.outcomes) {
            val expected = manifest.preflight.poolThreads.takeIf { outcome.server in bounded }
            assertEquals(expected, outcome.poolThreadsMax, "${outcome.server}'s pool bound, as its READY line gave it")
        }
        assertTrue(manifest.preflight.poolThreads > manifest.preflight.idleSockets, "${manifest.preflight}")
    }

    @Test
    fun `the pinning traps pin only the servers that can pin, as PinTrap says for the server's JDK`() {
        val pinned = manifest.outcomes.associate { it.server to it.pinnedEvents }
        val pinning = PinTrap.entries.filter { it.pinsOn(manifest.provenance.jdk.feature) }
        assertTrue(manifest.profile.pinTrapsPerSecond > 0 && pinning.isNotEmpty())
        for (server in manifest.catalogue) {
            if (server.traits.canPin) {
                // Each trap is hit once a round; every round's pinning traps are an event each.
                assertTrue((pinned.getValue(server.name) ?: 0) >= pinning.size, "${server.name}: $pinned")
            } else {
                assertEquals(0L, pinned.getValue(server.name), "${server.name} has no virtual thread to pin: $pinned")
            }
        }
    }

    @Test
    fun `the server ran on a CPU of its own, sized to it, and every pass says what each process used`() {
        val split = manifest.cpuSplit ?: return // a one-CPU host cannot split
        assertEquals(manifest.profile.serverCpus, split.serverCpus.size)
        assertTrue("-XX:ActiveProcessorCount=${split.serverCpus.size}" in manifest.jvmFlags, "${manifest.jvmFlags}")
        for (folder in manifest.outcomes.map { it.folder!! }) {
            val lines = File(runDir, "$folder/cpu.csv").readLines()
            val header = lines.first().split(',')
            val json = lines.drop(1).map { line -> header.zip(line.split(',')).toMap() }.filter { it["phase"] == "json" }
            fun used(process: String) = json.mapNotNull { it.getValue(process).toDoubleOrNull() }.sum()
            assertTrue(json.isNotEmpty() && used("server") > 0.0 && used("k6") > 0.0, "$folder: the /json seconds of cpu.csv, $json")
        }
    }

    @Test
    fun `the full step is wrk's closed loop on the server's budget, counted in closed-loop csv, its CPU in cpu csv, seen on the wire`() {
        val full = manifest.timeline.single { it.name == "json-full" }
        assertEquals(Profile.WRK, full.generator)
        assertTrue(manifest.wrk.startsWith("wrk"), "the manifest names the wrk: ${manifest.wrk}")
        for (folder in manifest.outcomes.map { it.folder!! }) {
            val rows = File(runDir, "$folder/${ClosedLoopStep.FILE}").readLines()
            val header = rows.first().split(',')
            val step = header.zip(rows.single { it.startsWith("json-full,") }.split(',')).toMap()
            val counted = step.getValue("counted_s").toDouble()
            val measured = (full.toSeconds - full.fromSeconds).toDouble()
            assertTrue(counted in (measured - 0.5)..(measured + 0.5), "$folder: counted over $counted s of a $measured s phase")
            val answered = step.getValue("answered").toLong()
            assertTrue(answered > 0 && step.getValue("not_ok") == "0", "$folder: $step")
            val cpu = File(runDir, "$folder/cpu.csv").readLines()
            val cpuHeader = cpu.first().split(',')
            val inStep = cpu.drop(1).map { cpuHeader.zip(it.split(',')).toMap() }.filter { it["phase"] == "json-full" }
            assertTrue(inStep.isNotEmpty() && inStep.all { it.getValue("wrk").isNotEmpty() }, "$folder: wrk's CPU in json-full: $inStep")
            assertTrue(
                inStep.all { it.getValue("server_budget").toDouble() == manifest.profile.curveServerCpuBudget },
                "$folder: the budget in the full step",
            )
            // The wire names a request by the harness's clock, wrk counts from its own start: the two agree but at the edges.
            val seen = File(runDir, "$folder/wire.csv").takeIf { it.isFile }?.readLines()?.count { it.split(',')[1] == "json-full" }
            seen?.let { assertTrue(it in (answered * 7 / 10)..(answered * 13 / 10), "$folder: the wire saw $it, wrk counted $answered") }
        }
    }

    @Test
    fun `the server had its CPU whole until the curve, its budget and no more in the curve's steps, and whole again for warm sockets`() {
        val budget = manifest.profile.curveServerCpuBudget
        assertTrue(budget > 0, "the smoke profile gives the server a budget for the curve, so that this path runs in make test")
        val curveStart = manifest.timeline.first { "-to-" in it.name }
        for (folder in manifest.outcomes.map { it.folder!! }) {
            val lines = File(runDir, "$folder/cpu.csv").readLines()
            val header = lines.first().split(',')
            val rows = lines.drop(1).map { line -> header.zip(line.split(',')).toMap() }
            val (inSteps, before) = rows.filter { "-at-" in it.getValue("phase") } to rows.takeWhile { it["phase"] != curveStart.name }
            assertTrue(inSteps.isNotEmpty() && before.isNotEmpty(), "$folder: ${rows.map { it["phase"] }}")
            assertEquals(listOf(""), before.map { it.getValue("server_budget") }.distinct(), "$folder: no budget before the curve")
            val warmSteps = rows.filter { it.getValue("phase").startsWith("warm-sockets-step-") }
            assertTrue(warmSteps.isNotEmpty(), "$folder: ${rows.map { it["phase"] }}")
            assertEquals(listOf(""), warmSteps.map { it.getValue("server_budget") }.distinct(), "$folder: no budget for the warm sockets")
            assertEquals(
                listOf(budget),
                inSteps.map {
                    it.getValue("server_budget").toDouble()
                }.distinct(),
                "$folder: the budget in the steps",
            )
            // The kernel's guarantee, read with /proc's 10 ms ticks: a core's 1% a second.
            assertTrue(inSteps.all { it.getValue("server").toDouble() <= budget + 0.02 }, "$folder: ${inSteps.map { it["server"] }}")
            assertTrue(
                inSteps.all {
                    it.getValue("server_throttled_s").toDouble() >= 0
                },
                "$folder: ${inSteps.map { it["server_throttled_s"] }}",
            )
        }
    }

    @Test
    fun `each socket step ends with a memory snapshot that counts the sockets the server holds open, cold and again warm`() {
        val steps = manifest.profile.socketSteps
        assertTrue(manifest.profile.warmSockets, "the smoke profile opens the sockets warm too, so that this path runs in make test")
        for (folder in manifest.outcomes.map { it.folder!! }) {
            val rows = File(runDir, "$folder/memory.csv").readLines().drop(1).map { it.split(',') }
            val liveHeap = rows.filter { it[3] == "live_heap" }
            val (warm, cold) = liveHeap.partition { it[1].startsWith("warm-sockets-") }
            val coldPhases = listOf("startup") + (1..steps).map { "sockets-step-$it" }
            assertEquals(coldPhases, cold.map { it[1] }, "$folder: at rest, then a step each")
            val warmPhases = listOf("warm-sockets-rest") + (1..steps).map { "warm-sockets-step-$it" }
            assertEquals(warmPhases, warm.map { it[1] }, "$folder: at rest after the load, then a step each")
            for ((sockets, which) in listOf(cold to "cold", warm to "warm")) {
                assertEquals(0, sockets.first()[2].toInt(), "$folder: the first $which snapshot is at rest, with no socket open")
                assertEquals(manifest.preflight.idleSockets, sockets.last()[2].toInt(), "$folder: the last $which step holds every socket")
            }
        }
    }

    @Test
    fun `no process of the run is left`() {
        assertEquals(emptyList(), harness.leftovers(runDir))
    }

    /** One HTTP request k6 timed in [server]'s pass: its status, and its endpoint tag (`endpoint=json-at-200`). */
    private data class K6Request(val status: String, val tag: String)

    private fun k6Requests(server: String): List<K6Request> =
        k6Samples(server, "http_req_duration", "status", "extra_tags").map { (status, tag) -> K6Request(status, tag) }

    /** An iteration k6 dropped, in [scenario] (an endpoint's), stamped with its whole epoch second. */
    private data class K6Dropped(val scenario: String, val epochSecond: Long)

    private fun k6DroppedIterations(server: String): List<K6Dropped> =
        k6Samples(server, "dropped_iterations", "scenario", "timestamp").map { (scenario, second) -> K6Dropped(scenario, second.toLong()) }

    /** The [columns] of each of k6's samples of [metric] in [server]'s pass, from its raw samples. */
    private fun k6Samples(server: String, metric: String, vararg columns: String): List<List<String>> =
        GZIPInputStream(File(runDir, "$server/k6-metrics.csv.gz").inputStream()).bufferedReader().useLines { lines ->
            val rows = lines.map { it.split(',') }.iterator()
            val header = rows.next()
            val named = header.indexOf("metric_name")
            val wanted = columns.map(header::indexOf)
            rows.asSequence().filter { it[named] == metric }.map { row -> wanted.map { row[it] } }.toList()
        }

    /** One request vegeta sent in [server]'s pass, where the profile gave it the curve (VegetaCurve.HEADER); none otherwise. */
    private data class VegetaRequest(val phase: String, val endpoint: String, val status: String)

    private fun vegetaRequests(server: String): List<VegetaRequest> {
        val file = File(runDir, "$server/${VegetaCurve.FILE}").takeIf { it.isFile } ?: return emptyList()
        return GZIPInputStream(file.inputStream()).bufferedReader().useLines { lines ->
            val rows = lines.map { it.split(',') }.iterator()
            val header = rows.next()
            val (phase, endpoint, status) = listOf("phase", "endpoint", "status").map(header::indexOf)
            rows.asSequence().map { VegetaRequest(it[phase], it[endpoint], it[status]) }.toList()
        }
    }

    private companion object {
        /** How many of k6's answered /json requests a pass's wire.csv may miss with no packet dropped. */
        const val WIRE_MISSED_MAX = 2

        /** The series' name of a major cycle of ZGC's warm-up rule. */
        const val WARMUP = "gc_major_warmup_cycle_s"
    }
}
