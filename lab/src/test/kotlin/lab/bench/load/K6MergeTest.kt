package lab.bench.load

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.double
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.util.Locale
import java.util.zip.GZIPInputStream
import java.util.zip.GZIPOutputStream
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** Segments' samples and summaries made into one server's, with every figure worked out by hand. */
class K6MergeTest {
    @TempDir
    lateinit var dir: File

    private val into by lazy { File(dir, "merged") }

    @Test
    fun `percentiles are k6's, interpolated between the closest ranks`() {
        val five = doubleArrayOf(10.0, 20.0, 30.0, 40.0, 50.0)
        assertEquals(30.0, K6Merge.percentile(five, 50.0))
        // i = 0.9 * 4 = 3.6: 40 + (50 - 40) * 0.6
        assertEquals(46.0, K6Merge.percentile(five, 90.0), 1e-12)
        // i = 0.999 * 4 = 3.996: 40 + 10 * 0.996
        assertEquals(49.96, K6Merge.percentile(five, 99.9), 1e-12)
        assertEquals(10.0, K6Merge.percentile(five, 0.0))
        assertEquals(50.0, K6Merge.percentile(five, 100.0))
        // i = 0.5 * 3 = 1.5: halfway between 2 and 3
        assertEquals(2.5, K6Merge.percentile(doubleArrayOf(1.0, 2.0, 3.0, 4.0), 50.0))
        assertEquals(7.0, K6Merge.percentile(doubleArrayOf(7.0), 99.0))
        assertEquals(0.0, K6Merge.percentile(DoubleArray(0), 99.0))
    }

    @Test
    fun `a summary key is read as k6 reads a threshold's submetric`() {
        assertEquals(K6Merge.MetricKey("iterations", emptyMap()), K6Merge.MetricKey.parse("iterations"))
        assertEquals(
            K6Merge.MetricKey("http_req_duration", mapOf("endpoint" to "json")),
            K6Merge.MetricKey.parse("http_req_duration{endpoint:json}"),
        )
        assertEquals(
            K6Merge.MetricKey("lab_t", mapOf("endpoint" to "x", "status" to "200")),
            K6Merge.MetricKey.parse("lab_t{endpoint: 'x', status:\"200\"}"),
        )
        assertEquals(mapOf("url" to "http://sut:8080/json"), K6Merge.MetricKey.parse("http_reqs{url:http://sut:8080/json}").tags)
    }

    @Test
    fun `trends come from all raw samples, filtered by a custom tag or a column`() {
        segment("0", segment0Rows, summary0)
        segment("1", segment1Rows, summary1)
        K6Merge.merge(listOf(File(dir, "0"), File(dir, "1")), into)
        val metrics = merged()["metrics"]!!.jsonObject

        // All five durations: 10, 20, 30, 40, 50.
        val all = values(metrics, "http_req_duration")
        assertEquals(setOf("avg", "min", "med", "max", "p(90)", "p(99.9)"), all.keys, "exactly the stats the segments list")
        assertEquals(30.0, all.getValue("avg"))
        assertEquals(10.0, all.getValue("min"))
        assertEquals(30.0, all.getValue("med"))
        assertEquals(50.0, all.getValue("max"))
        assertEquals(46.0, all.getValue("p(90)"), 1e-9)
        assertEquals(49.96, all.getValue("p(99.9)"), 1e-9)

        // endpoint=json in extra_tags: 10, 20, 40. p(90): i = 0.9 * 2 = 1.8, 20 + 20 * 0.8.
        val json = values(metrics, "http_req_duration{endpoint:json}")
        assertEquals(20.0, json.getValue("med"))
        assertEquals(36.0, json.getValue("p(90)"), 1e-9)
        assertEquals(70.0 / 3, json.getValue("avg"), 1e-9)

        // The scenario column: 30 and 50, the row with a quoted error among them. p(90): 30 + 20 * 0.9.
        val dashboard = values(metrics, "http_req_duration{scenario:dashboard}")
        assertEquals(40.0, dashboard.getValue("med"))
        assertEquals(48.0, dashboard.getValue("p(90)"), 1e-9)
        assertEquals(30.0, dashboard.getValue("min"))

        // No sample carries the tag: zeros, as k6 reports an empty submetric.
        assertEquals(0.0, values(metrics, "http_req_duration{endpoint:pin}").getValue("max"))

        assertEquals("trend", metrics["http_req_duration{endpoint:json}"]!!.jsonObject["type"]!!.jsonPrimitive.content)
        assertEquals("time", metrics["http_req_duration{endpoint:json}"]!!.jsonObject["contains"]!!.jsonPrimitive.content)
        assertNull(metrics["http_req_duration{endpoint:json}"]!!.jsonObject["thresholds"], "thresholds judged one segment only")
    }

    @Test
    fun `counters and rates add up, gauges are summed`() {
        segment("0", segment0Rows, summary0)
        segment("1", segment1Rows, summary1)
        K6Merge.merge(listOf(File(dir, "0"), File(dir, "1")), into)
        val summary = merged()
        val metrics = summary["metrics"]!!.jsonObject

        val reqs = metrics["http_reqs"]!!.jsonObject["values"]!!.jsonObject
        assertEquals(
            5,
            reqs["count"]!!.jsonPrimitive.long,
            "a whole count is written as k6 writes it, so readers can take it as an integer",
        )
        assertEquals(5 / 12.0005, reqs["rate"]!!.jsonPrimitive.double, 1e-12, "over the longest segment's run")
        assertEquals("counter", metrics["http_reqs"]!!.jsonObject["type"]!!.jsonPrimitive.content)

        val failed = values(metrics, "http_req_failed")
        assertEquals(3.0, failed.getValue("passes"))
        assertEquals(1.0, failed.getValue("fails"))
        assertEquals(0.75, failed.getValue("rate"))

        val vus = values(metrics, "vus")
        assertEquals(mapOf("value" to 5.0, "min" to 2.0, "max" to 7.0), vus)

        assertEquals(4.0, values(metrics, "dropped_iterations{scenario:json}").getValue("count"), "a metric only one segment reported")

        assertEquals(12_000.5, summary["state"]!!.jsonObject["testRunDurationMs"]!!.jsonPrimitive.double)
        val lab = summary["lab"]!!.jsonObject
        assertEquals(2, lab["segments"]!!.jsonPrimitive.int)
        assertEquals("raw samples of all segments", lab["percentilesFrom"]!!.jsonPrimitive.content)
        assertEquals(listOf("0", "1"), lab["sources"]!!.jsonArray.map { it.jsonPrimitive.content })
    }

    @Test
    fun `the merged CSV has one header and every row of every segment, byte for byte`() {
        segment("0", segment0Rows, summary0)
        segment("1", segment1Rows, summary1)
        K6Merge.merge(listOf(File(dir, "0"), File(dir, "1")), into)

        val text = GZIPInputStream(File(into, "k6-metrics.csv.gz").inputStream()).readBytes().toString(Charsets.UTF_8)
        assertEquals((listOf(HEADER) + segment0Rows + segment1Rows).joinToString("") { "$it\n" }, text)
        assertEquals(1, text.lines().count { it == HEADER })
        assertFalse(into.listFiles()!!.any { it.name.endsWith(".part") })
    }

    @Test
    fun `segments with other columns are refused, naming both files`() {
        segment("0", segment0Rows, summary0)
        segment("1", segment1Rows, summary1, header = HEADER.replace(",service", ""))
        val error = assertThrows<IllegalStateException> { K6Merge.merge(listOf(File(dir, "0"), File(dir, "1")), into) }
        assertTrue(
            File(dir, "1/k6-metrics.csv.gz").path in error.message!! && File(dir, "0/k6-metrics.csv.gz").path in error.message!!,
            error.message,
        )
        assertFalse(File(into, "k6-summary.json").exists(), "no summary for a merge that failed")
    }

    @Test
    fun `a missing or unreadable segment file is named`() {
        segment("0", segment0Rows, summary0)
        segment("1", segment1Rows, summary1)
        val segments = listOf(File(dir, "0"), File(dir, "1"))

        File(dir, "1/k6-summary.json").delete()
        val noSummary = assertThrows<IllegalStateException> { K6Merge.merge(segments, into) }
        assertTrue(File(dir, "1/k6-summary.json").path in noSummary.message!!, noSummary.message)

        File(dir, "1/k6-summary.json").writeText("{\"metrics\": ")
        val badSummary = assertThrows<IllegalStateException> { K6Merge.merge(segments, into) }
        assertTrue(File(dir, "1/k6-summary.json").path in badSummary.message!!, badSummary.message)

        File(dir, "1/k6-summary.json").writeText(summary1)
        File(dir, "1/k6-metrics.csv.gz").delete()
        val noCsv = assertThrows<IllegalStateException> { K6Merge.merge(segments, into) }
        assertTrue(File(dir, "1/k6-metrics.csv.gz").path in noCsv.message!!, noCsv.message)

        File(dir, "1/k6-metrics.csv.gz").writeText("not gzip")
        val notGzip = assertThrows<IllegalStateException> { K6Merge.merge(segments, into) }
        assertTrue(File(dir, "1/k6-metrics.csv.gz").path in notGzip.message!!, notGzip.message)

        // What a k6 killed mid-write leaves.
        segment("1", segment1Rows, summary1)
        val whole = File(dir, "1/k6-metrics.csv.gz").readBytes()
        File(dir, "1/k6-metrics.csv.gz").writeBytes(whole.copyOf(whole.size - 12))
        val cut = assertThrows<IllegalStateException> { K6Merge.merge(segments, into) }
        assertTrue(File(dir, "1/k6-metrics.csv.gz").path in cut.message!!, cut.message)
        assertFalse(File(into, "k6-metrics.csv.gz").exists(), "no half-written samples under the merged name")
    }

    private fun values(metrics: JsonObject, key: String): Map<String, Double> =
        metrics[key]!!.jsonObject["values"]!!.jsonObject.mapValues { it.value.jsonPrimitive.double }

    private fun merged(): JsonObject = Json.parseToJsonElement(File(into, "k6-summary.json").readText()).jsonObject

    private fun segment(name: String, rows: List<String>, summary: String, header: String = HEADER) {
        val folder = File(dir, name).apply { mkdirs() }
        GZIPOutputStream(File(folder, "k6-metrics.csv.gz").outputStream()).bufferedWriter().use { out ->
            (listOf(header) + rows).forEach { out.write("$it\n") }
        }
        File(folder, "k6-summary.json").writeText(summary)
    }

    private companion object {
        const val HEADER = "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name," +
            "proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"

        /** A row as k6's CSV output writes it: 6 decimals, system tags in their columns, the script's own in extra_tags. */
        fun row(metric: String, value: Double, scenario: String, extraTags: String = "", error: String = ""): String = listOf(
            metric, "1795344025", "%.6f".format(Locale.ROOT, value), "", error, "", "true", "", "GET", "", "HTTP/1.1",
            scenario, "", "200", "", "", "http://sut/", extraTags, "",
        ).joinToString(",")

        val segment0Rows = listOf(
            row("http_req_duration", 10.0, "json", "endpoint=json&trap=none"),
            row("http_reqs", 1.0, "json", "endpoint=json"),
            row("http_req_duration", 30.0, "dashboard", "endpoint=dashboard"),
            row("http_reqs", 1.0, "dashboard", "endpoint=dashboard"),
            row("vus", 2.0, ""),
        )

        /** One row's error holds a comma, a quote and a line break, so k6 quotes it. */
        val segment1Rows = listOf(
            row("http_req_duration", 20.0, "json", "trap=none&endpoint=json"),
            row("http_req_duration", 40.0, "json", "endpoint=json"),
            row("http_req_duration", 50.0, "dashboard", "endpoint=dashboard", error = "\"read: reset, by \"\"peer\"\"\nthen closed\""),
            row("iteration_duration", 99.0, "json"),
        )

        val summary0 = """
            {"metrics": {
              "http_req_duration": {"type": "trend", "contains": "time",
                "values": {"avg": 1, "min": 1, "med": 1, "max": 1, "p(90)": 1, "p(99.9)": 1}},
              "http_req_duration{endpoint:json}": {"type": "trend", "contains": "time",
                "values": {"avg": 1, "min": 1, "med": 1, "max": 1, "p(90)": 1, "p(99.9)": 1}, "thresholds": {"max>=0": {"ok": true}}},
              "http_req_duration{scenario:dashboard}": {"type": "trend", "contains": "time",
                "values": {"avg": 1, "min": 1, "med": 1, "max": 1, "p(90)": 1, "p(99.9)": 1}},
              "http_req_duration{endpoint:pin}": {"type": "trend", "contains": "time",
                "values": {"avg": 0, "min": 0, "med": 0, "max": 0, "p(90)": 0, "p(99.9)": 0}},
              "http_reqs": {"type": "counter", "contains": "default", "values": {"count": 2, "rate": 0.2}},
              "http_req_failed": {"type": "rate", "contains": "default", "values": {"rate": 0.5, "passes": 1, "fails": 1}},
              "vus": {"type": "gauge", "contains": "default", "values": {"value": 3, "min": 1, "max": 4}}
            },
            "state": {"isStdOutTTY": false, "testRunDurationMs": 10000}}
        """.trimIndent()

        val summary1 = """
            {"metrics": {
              "http_req_duration": {"type": "trend", "contains": "time",
                "values": {"avg": 2, "min": 2, "med": 2, "max": 2, "p(90)": 2, "p(99.9)": 2}},
              "http_req_duration{endpoint:json}": {"type": "trend", "contains": "time",
                "values": {"avg": 2, "min": 2, "med": 2, "max": 2, "p(90)": 2, "p(99.9)": 2}, "thresholds": {"max>=0": {"ok": true}}},
              "http_req_duration{scenario:dashboard}": {"type": "trend", "contains": "time",
                "values": {"avg": 2, "min": 2, "med": 2, "max": 2, "p(90)": 2, "p(99.9)": 2}},
              "http_reqs": {"type": "counter", "contains": "default", "values": {"count": 3, "rate": 0.25}},
              "http_req_failed": {"type": "rate", "contains": "default", "values": {"rate": 1, "passes": 2, "fails": 0}},
              "vus": {"type": "gauge", "contains": "default", "values": {"value": 2, "min": 1, "max": 3}},
              "dropped_iterations{scenario:json}": {"type": "counter", "contains": "default", "values": {"count": 4, "rate": 0.3}}
            },
            "state": {"isStdOutTTY": false, "testRunDurationMs": 12000.5}}
        """.trimIndent()
    }
}
