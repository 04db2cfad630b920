package lab.bench.load

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.doubleOrNull
import kotlinx.serialization.json.put
import lab.support.writeAtomically
import java.io.File
import kotlin.math.abs
import kotlin.math.ceil
import kotlin.math.floor

/**
 * One server's load, run as several k6 execution segments, made into the two files one k6
 * would have written, so that everything reading a server's folder works unchanged:
 *
 * - `k6-metrics.csv.gz`: every segment's samples under one header.
 * - `k6-summary.json`: k6's `metrics` object for every metric any segment reported. A trend's
 *   figures (avg, min, med, max, p(N), as the segments' summaries list them) are computed from
 *   the raw samples of all segments, because k6 cannot merge percentiles and averaging the
 *   segments' percentiles would be wrong. Counters and rates add up exactly from the segments'
 *   summaries; a counter's rate is over the longest segment's run. A gauge is the **sum** of
 *   the segments' gauges (value, min and max each added up): the VUs of all load generators
 *   together, which is a bound rather than a measurement for min and max, since the segments'
 *   extremes need not coincide. Thresholds are dropped: each segment judged only its share.
 *   A top-level `lab` object says the file was merged, and from which segment folders.
 *
 * k6's CSV output writes values with 6 decimals (`%f`), so a merged trend can differ from the
 * figure k6 computes from its in-memory samples by that rounding alone: at most 5e-7 in the
 * metric's unit (milliseconds for durations).
 *
 * The samples are streamed ([K6SampleCopy]): a 10-minute run has millions of rows. Only the
 * values of the trends the summary needs are kept, as primitive arrays ([TrendSamples]).
 */
object K6Merge {
    private const val METRICS = K6Samples.FILE
    private const val SUMMARY = "k6-summary.json"

    /**
     * Merges the [segments] folders (each with k6's `k6-metrics.csv.gz` and `k6-summary.json`)
     * into [into]. A file missing, unreadable or not k6's throws [IllegalStateException] naming it.
     */
    fun merge(segments: List<File>, into: File) {
        require(segments.isNotEmpty()) { "no segments to merge" }
        val summaries = segments.map { readSummary(File(it, SUMMARY)) }
        // Every metric any segment reported, in the order k6 first listed them.
        val metrics = LinkedHashMap<String, MutableList<JsonObject>>()
        for ((i, summary) in summaries.withIndex()) {
            for ((key, metric) in summary.obj("metrics")) {
                metrics.getOrPut(key) { mutableListOf() } += metric as? JsonObject
                    ?: throw IllegalStateException("${File(segments[i], SUMMARY)} is not a k6 summary: metric $key is no object")
            }
        }
        val trendKeys = metrics.filterValues { it.first().string("type") == "trend" }.keys.map(MetricKey::parse).distinct()
        val trends = TrendSamples(trendKeys)
        into.mkdirs()
        K6SampleCopy.copy(segments.map { File(it, METRICS) }, File(into, METRICS), trends)

        val durationMs = summaries.maxOf { it.obj("state")["testRunDurationMs"].double() ?: 0.0 }
        val merged = buildJsonObject {
            put("metrics", buildJsonObject { metrics.forEach { (key, each) -> put(key, mergeMetric(key, each, trends, durationMs)) } })
            put("state", buildJsonObject { put("testRunDurationMs", number(durationMs)) })
            put(
                "lab",
                buildJsonObject {
                    put("segments", segments.size)
                    put("percentilesFrom", "raw samples of all segments")
                    put("sources", buildJsonArray { segments.forEach { add(JsonPrimitive(it.name)) } })
                },
            )
        }
        // Written last and whole: a summary present means the merge finished.
        writeAtomically(File(into, SUMMARY)) { it.write(pretty.encodeToString(JsonObject.serializer(), merged).toByteArray()) }
    }

    private val pretty = Json { prettyPrint = true }

    private fun mergeMetric(key: String, each: List<JsonObject>, trends: TrendSamples, durationMs: Double): JsonObject {
        val type = each.first().string("type")
        fun sum(stat: String) = each.sumOf { it.obj("values")[stat].double() ?: 0.0 }
        val values: Map<String, Double> = when (type) {
            "counter" -> sum("count").let { mapOf("count" to it, "rate" to if (durationMs > 0) it / (durationMs / 1000) else 0.0) }
            "rate" -> {
                val passes = sum("passes")
                val fails = sum("fails")
                mapOf("rate" to if (passes + fails > 0) passes / (passes + fails) else 0.0, "passes" to passes, "fails" to fails)
            }
            "gauge" -> mapOf("value" to sum("value"), "min" to sum("min"), "max" to sum("max"))
            "trend" -> trends.stats(MetricKey.parse(key), each.flatMap { it.obj("values").keys }.distinct())
            else -> emptyMap()
        }
        return buildJsonObject {
            put("type", type)
            each.first().string("contains")?.let { put("contains", it) }
            put("values", buildJsonObject { values.forEach { (stat, v) -> put(stat, number(v)) } })
        }
    }

    /**
     * k6's percentile of [sorted] values, [pct] in percent: linear between the two closest
     * ranks, as k6's trend sink computes it, so that merged figures are comparable with an
     * unsegmented run's.
     */
    fun percentile(sorted: DoubleArray, pct: Double): Double = when (sorted.size) {
        0 -> 0.0
        1 -> sorted[0]
        else -> {
            val i = pct / 100 * (sorted.size - 1)
            val low = sorted[floor(i).toInt()]
            low + (sorted[ceil(i).toInt()] - low) * (i - floor(i))
        }
    }

    /**
     * A summary key: `http_req_duration{endpoint:json}` is the metric `http_req_duration` and
     * the tags its samples must carry. Parsed as k6 parses a threshold's submetric, which keeps
     * the key as written (`lab_t{endpoint: 'x'}`) but trims spaces and quotes off tags and values.
     */
    data class MetricKey(val name: String, val tags: Map<String, String>) {
        companion object {
            fun parse(key: String): MetricKey {
                val open = key.indexOf('{')
                if (open < 0 || !key.endsWith('}')) return MetricKey(key.trim(), emptyMap())
                val tags = key.substring(open + 1, key.length - 1).split(',').filter { it.isNotBlank() }.associate { pair ->
                    fun clean(s: String) = s.trim().trim('"', '\'')
                    clean(pair.substringBefore(':')) to if (':' in pair) clean(pair.substringAfter(':')) else ""
                }
                return MetricKey(key.substring(0, open).trim(), tags)
            }
        }
    }

    private fun readSummary(file: File): JsonObject {
        if (!file.isFile) throw IllegalStateException("$file is missing: that segment's k6 did not finish")
        val summary = try {
            Json.parseToJsonElement(file.readText())
        } catch (e: Exception) {
            throw IllegalStateException("$file is not a k6 summary: ${e.message}", e)
        }
        return summary as? JsonObject ?: throw IllegalStateException("$file is not a k6 summary: not a JSON object")
    }

    /** As JSON.stringify writes numbers, which k6's own summary does: whole ones without a fraction, and no NaN. */
    private fun number(v: Double): JsonPrimitive = when {
        !v.isFinite() -> JsonNull
        v == floor(v) && abs(v) < 9.007199254740992E15 -> JsonPrimitive(v.toLong())
        else -> JsonPrimitive(v)
    }

    private fun JsonElement?.double(): Double? = (this as? JsonPrimitive)?.doubleOrNull

    private fun JsonObject.obj(key: String): JsonObject = this[key] as? JsonObject ?: JsonObject(emptyMap())

    private fun JsonObject.string(key: String): String? = (this[key] as? JsonPrimitive)?.takeIf { it.isString }?.content
}
