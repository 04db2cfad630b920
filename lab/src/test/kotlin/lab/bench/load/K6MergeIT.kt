package lab.bench.load

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.double
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.io.File
import java.util.concurrent.TimeUnit
import java.util.zip.GZIPInputStream
import kotlin.math.abs
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * [K6Merge] against k6 itself: one script run whole, and again as two execution segments at
 * once, as two load generators would. Needs no network: the script only records numbers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class K6MergeIT {
    private val results = File(System.getProperty("lab.results"), "k6-merge")
    private val whole = File(results, "whole")
    private val segments = listOf(File(results, "segments/0"), File(results, "segments/1"))
    private val mergedWhole = File(results, "merged-whole")
    private val mergedSegments = File(results, "merged-segments")

    @BeforeAll
    fun runK6() {
        val k6 = System.getenv("LAB_K6") ?: fail("set LAB_K6 to k6's path; `make test` does")
        results.deleteRecursively()
        val script = File(results, "merge.js").apply {
            parentFile.mkdirs()
            writeText(SCRIPT)
        }
        fun start(out: File, vararg segment: String): Process {
            out.mkdirs()
            return ProcessBuilder(
                k6, "run", "--quiet", "--no-color", "--no-usage-report", "--address", "", *segment,
                "--out", "csv=${File(out, "k6-metrics.csv.gz")}", "-e", "LAB_SUMMARY=${File(out, "k6-summary.json")}", script.path,
            ).redirectErrorStream(true).redirectOutput(File(out, "k6.log")).start()
        }
        fun await(process: Process, out: File) {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly()
                fail("k6 took over 60 s; see ${File(out, "k6.log")}")
            }
            assertEquals(0, process.exitValue(), "k6 failed: ${File(out, "k6.log").readText()}")
        }

        await(start(whole), whole)
        val sequence = arrayOf("--execution-segment-sequence", "0,1/2,1")
        val started = listOf(
            start(segments[0], "--execution-segment", "0:1/2", *sequence),
            start(segments[1], "--execution-segment", "1/2:1", *sequence),
        )
        started.zip(segments).forEach { (process, out) -> await(process, out) }

        K6Merge.merge(listOf(whole), mergedWhole)
        K6Merge.merge(segments, mergedSegments)
    }

    @Test
    fun `merging one whole run gives k6's own trend figures, but for the CSV's rounding`() {
        val k6 = summary(whole)
        val ours = summary(mergedWhole)
        var largestRelative = 0.0
        var largestAbsolute = 0.0
        for (key in listOf("lab_t", "lab_t{endpoint:x}")) {
            val expected = values(k6, key)
            val actual = values(ours, key)
            assertEquals(expected.keys, actual.keys, key)
            for ((stat, value) in expected) {
                val difference = abs(actual.getValue(stat) - value)
                val relative = difference / abs(value)
                largestRelative = maxOf(largestRelative, relative)
                largestAbsolute = maxOf(largestAbsolute, difference)
                assertTrue(relative <= 1e-6, "$key $stat: k6 $value, merged ${actual.getValue(stat)}")
                // 6 decimals: each value is off by at most half a millionth, and so is any mean or interpolation of them.
                assertTrue(difference <= 5e-7 + 1e-12, "$key $stat: k6 $value, merged ${actual.getValue(stat)}")
            }
        }
        println("K6MergeIT: merged vs k6's own summary: largest relative difference $largestRelative, absolute $largestAbsolute")
    }

    @Test
    fun `two segments make exactly the whole run's iterations, per scenario and in all`() {
        val wholeIterations = iterationsPerScenario(whole)
        val each = segments.map(::iterationsPerScenario)
        val together = (each[0].keys + each[1].keys).associateWith { s -> each.sumOf { it[s] ?: 0L } }
        val dropped = (listOf(whole) + segments).map { summary(it)["metrics"]!!.jsonObject["dropped_iterations"] }
        // One every 20 ms from 0 to 3000 ms; one each time the ramp's rate integrates to a whole number, to 121 at 4 s.
        assertEquals(mapOf("steady" to 151L, "ramp" to 121L), wholeIterations, "the schedule's iterations, none dropped nor extra")
        assertEquals(wholeIterations, together, "segments $each; dropped iterations (whole, 0, 1): $dropped")
        assertTrue(each.all { segment -> wholeIterations.keys.all { (segment[it] ?: 0) > 0 } }, "each segment ran its share of both: $each")

        val total = wholeIterations.values.sum()
        assertEquals(total, count(summary(whole), "iterations"))
        assertEquals(total, count(summary(mergedSegments), "iterations"))
        println("K6MergeIT: iterations whole $wholeIterations, segments $each")
    }

    @Test
    fun `the merged segments' percentiles are those of both segments' raw samples`() {
        val merged = summary(mergedSegments)
        for ((key, wanted) in listOf(
            "lab_t" to { _: String -> true },
            "lab_t{endpoint:x}" to { tags: String -> "endpoint=x" in tags.split('&') },
        )) {
            val all = segments.flatMap { rows(it) }.filter { it["metric_name"] == "lab_t" && wanted(it.getValue("extra_tags")) }
                .map { it.getValue("metric_value").toDouble() }.sorted().toDoubleArray()
            val stats = values(merged, key)
            assertEquals(K6Merge.percentile(all, 99.0), stats.getValue("p(99)"), key)
            assertEquals(K6Merge.percentile(all, 99.9), stats.getValue("p(99.9)"), key)
            assertEquals(all.last(), stats.getValue("max"), key)
        }
    }

    private fun iterationsPerScenario(dir: File): Map<String, Long> = rows(dir).filter { it["metric_name"] == "iterations" }
        .groupingBy { it.getValue("scenario") }.fold(0L) { sum, row -> sum + row.getValue("metric_value").toDouble().toLong() }

    /** The script's rows have no quoted fields (no errors, no URLs), so a plain split reads them. */
    private fun rows(dir: File): List<Map<String, String>> =
        GZIPInputStream(File(dir, "k6-metrics.csv.gz").inputStream()).bufferedReader().useLines { lines ->
            val iterator = lines.iterator()
            val header = iterator.next().split(',')
            iterator.asSequence().map { header.zip(it.split(',')).toMap() }.toList()
        }

    private fun summary(dir: File): JsonObject = Json.parseToJsonElement(File(dir, "k6-summary.json").readText()).jsonObject

    private fun values(summary: JsonObject, key: String): Map<String, Double> =
        summary["metrics"]!!.jsonObject[key]?.jsonObject?.get("values")?.jsonObject?.mapValues { it.value.jsonPrimitive.double }
            ?: fail("no $key in the summary: ${summary["metrics"]!!.jsonObject.keys}")

    private fun count(summary: JsonObject, key: String): Long =
        summary["metrics"]!!.jsonObject[key]!!.jsonObject["values"]!!.jsonObject["count"]!!.jsonPrimitive.long

    private companion object {
        /**
         * Two arrival-rate executors, as the bench's, so that splitting them is what the bench
         * relies on. Values from 1 to 100: the CSV's 6 decimals stay within 1e-6 relative.
         *
         * Each scenario ends 10 ms past its last iteration's start, half a tick before the next:
         * an iteration due at the very instant a scenario ends races k6's end of it, and ran or
         * not by chance even in one unsegmented process (150 to 152 iterations of "50/s for 3 s",
         * 120 or 121 of the ramp), so the whole run's counts and the segments' would differ by chance.
         */
        val SCRIPT = """
            import { Trend } from 'k6/metrics';

            const t = new Trend('lab_t');

            export const options = {
              scenarios: {
                steady: {
                  executor: 'constant-arrival-rate', rate: 50, timeUnit: '1s', duration: '3010ms', preAllocatedVUs: 10, maxVUs: 20,
                },
                ramp: {
                  executor: 'ramping-arrival-rate', startRate: 1, timeUnit: '1s', preAllocatedVUs: 10, maxVUs: 40,
                  stages: [{ target: 40, duration: '2s' }, { target: 40, duration: '2010ms' }],
                },
              },
              summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(99)', 'p(99.9)'],
              thresholds: { 'lab_t{endpoint:x}': ['max>=0'] },
            };

            export default function () {
              t.add(1 + Math.random() * 99, { endpoint: __ITER % 2 === 0 ? 'x' : 'y' });
            }

            export function handleSummary(data) {
              return { [__ENV.LAB_SUMMARY]: JSON.stringify(data) };
            }
        """.trimIndent()
    }
}
