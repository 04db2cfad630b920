package lab.bench

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.doubleOrNull
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import lab.bench.collect.RunClock
import lab.bench.collect.WallClockStep
import lab.bench.load.K6Load
import lab.bench.load.Profile
import lab.support.ServerEntry
import java.io.File

/** What a pass's outcome.json holds, built from what it measured ([PassMeasured]) however it ended. */
internal object PassOutcome {
    /** How the pass ended and why, k6's summary figures of its steady phases, its peaks, and the marks a reader must see. */
    fun of(
        server: ServerEntry,
        setup: RunSetup,
        dir: File,
        streamJfr: Boolean,
        measured: PassMeasured,
        clock: RunClock,
        failure: String?,
        startNs: Long,
    ): ServerOutcome {
        val summary = measured.k6Summary?.takeIf { it.isFile }?.let { Json.parseToJsonElement(it.readText()).jsonObject }
        // k6's figures of the steady /json phase, where k6 offered it; where vegeta did (Profile.jsonGenerator), the report reads
        // vegeta's, and the terminal's table shows none.
        val k6Json = summary?.takeIf { setup.profile.jsonGenerator == Profile.K6 }
        val jsonRequests = k6Json?.value("http_reqs{endpoint:json}", "count")
        val failedChecks = summary?.value("checks", "fails")?.toLong()
        // A rate's "passes" are its true samples: for http_req_failed, the failed requests.
        val dashboardFailures = summary?.value("http_req_failed{scenario:dashboard}", "passes")?.toLong()
        val socketsOpened = summary?.let { it.value("lab_sockets_opened", "count")?.toLong() ?: 0L }
        // Every socket the profile opens: the idle sockets, and as many again where they open warm too.
        val planned = setup.preflight.idleSockets * (if (setup.profile.warmSockets) 2 else 1)
        val firstWholeSecond = { loadSeconds: Int -> measured.loadStartEpochMs?.let { (it + loadSeconds * 1000L + 999) / 1000 } }
        val steadyFrom = firstWholeSecond(setup.profile.jsonStartSeconds)
        // Where the json scenario goes on to the curve's steps, the steady phase's samples are those stamped before the second
        // its end falls in (k6 stamps each sample with its whole second).
        val jsonEnd = setup.profile.jsonStartSeconds + setup.profile.jsonSeconds
        val curveAfter = setup.profile.jsonCurveRatesPerSecond.isNotEmpty()
        val wallClockSteps = clock.wallClockSteps
        val steadyUntil = measured.loadStartEpochMs?.takeIf { curveAfter }?.let { (it + jsonEnd * 1000L) / 1000 } ?: Long.MAX_VALUE
        return ServerOutcome(
            server = server.name,
            folder = dir.name,
            jfrStreaming = streamJfr,
            status = if (failure == null) ServerOutcome.OK else ServerOutcome.FAILED,
            reason = failure,
            phaseAtEnd = clock.phase(),
            seconds = (System.nanoTime() - startNs) / 1e9,
            peakOpenSockets = measured.peakSockets,
            peakRssBytes = measured.peakRss,
            peakThreads = measured.peakThreads,
            jsonP99Ms = k6Json?.value("http_req_duration{endpoint:json}", "p(99)"),
            jsonRequests = jsonRequests?.toLong(),
            jsonPerSecond = jsonRequests?.div(setup.profile.jsonSeconds),
            loadStartEpochMs = measured.loadStartEpochMs,
            k6StartEpochMs = measured.k6StartEpochMs,
            jsonSteadyFromEpochSecond = steadyFrom,
            dashboardSteadyFromEpochSecond = firstWholeSecond(setup.profile.dashboardStartSeconds),
            jsonDroppedIterations = k6Json?.let { steadyFrom?.let { K6Load.droppedIterations(dir, "json", it, steadyUntil) } },
            failedChecks = failedChecks,
            dashboardFailures = dashboardFailures,
            socketsOpened = socketsOpened,
            socketsPlanned = planned,
            marks = listOfNotNull(
                measured.stubLost,
                failedChecks?.takeIf { it > 0 }?.let { "$it k6 check(s) failed: not every answer under load was the contract's" },
                socketsOpened?.takeIf { it < planned }?.let { "${planned - it} of $planned idle sockets never opened" },
                measured.noWire,
                measured.wireDroppedPackets.takeIf {
                    it > 0
                }?.let { "the wire capture dropped $it packets: wire.csv misses their requests" },
            ) + measured.problems + wallClockSteps.map(::wallClockMark),
            wallClockSteps = wallClockSteps,
            pinnedEvents = measured.pinnedEvents,
        )
    }

    /**
     * What a move of the wall clock leaves wrong: the harness's series are on the monotonic clock, but k6 stamps its samples by the
     * wall clock, and the report reads them by the pass's load start (loadStartEpochMs), so k6's samples after the move are off by it.
     */
    private fun wallClockMark(step: WallClockStep): String {
        val moved = "%+.1f".format(step.movedMs / 1000.0)
        return "the host's wall clock moved $moved s against the monotonic clock at ${"%.0f".format(step.atSeconds)} s " +
            "(the VM was paused, or its clock was set): k6's own samples after it are that far off its timeline"
    }

    private fun JsonObject.value(metric: String, stat: String): Double? =
        this["metrics"]?.jsonObject?.get(metric)?.jsonObject?.get("values")?.jsonObject?.get(stat)?.jsonPrimitive?.doubleOrNull
}
