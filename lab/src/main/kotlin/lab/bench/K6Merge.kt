package lab.bench

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.doubleOrNull
import kotlinx.serialization.json.put
import java.io.File
import java.io.IOException
import java.io.Reader
import java.io.Writer
import java.nio.file.Files
import java.nio.file.StandardCopyOption
import java.util.zip.GZIPInputStream
import java.util.zip.GZIPOutputStream
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
 * The samples are streamed: a 10-minute run has millions of rows. Only the values of the
 * trends the summary needs are kept, as primitive arrays.
 */
object K6Merge {
    private const val METRICS = "k6-metrics.csv.gz"
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
        copySamples(segments.map { File(it, METRICS) }, File(into, METRICS), trends)

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
        writeAtomically(File(into, SUMMARY)) { it.write(pretty.encodeToString(JsonObject.serializer(), merged)) }
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

    /** The values of each trend the summaries list, gathered while the samples are copied. */
    private class TrendSamples(keys: List<MetricKey>) {
        private val byName = keys.groupBy { it.name }
        private val values = keys.associateWith { DoubleList() }
        private lateinit var filters: Map<MetricKey, List<Filter>>
        private var valueColumn = -1
        private var extraColumn = -1

        /**
         * A submetric tag is a CSV column if it is one of the system tags k6 was told to keep,
         * else it is among `extra_tags`. The file is read as ISO-8859-1 (bytes kept as they are,
         * for the copy), so a wanted value is compared in that form too.
         */
        private class Filter(val column: Int, val tag: String, val value: String)

        fun header(columns: List<String>) {
            val index = columns.withIndex().associate { it.value to it.index }
            valueColumn = index["metric_value"] ?: -1
            extraColumn = index["extra_tags"] ?: -1
            val notTags = setOf("metric_name", "timestamp", "metric_value", "extra_tags", "metadata")
            filters = values.keys.associateWith { key ->
                key.tags.map { (tag, value) -> Filter(if (tag in notTags) -1 else index[tag] ?: -1, latin1(tag), latin1(value)) }
            }
        }

        /** False if [record] is a trend row this file cannot give a value for. */
        fun offer(record: String): Boolean {
            val keys = byName[record.substringBefore(',')] ?: return true
            val fields = csvFields(record)
            val value = fields.getOrNull(valueColumn)?.let(::sampleValue) ?: return false
            val extra by lazy {
                fields.getOrNull(extraColumn).orEmpty().split('&').filter { '=' in it }
                    .associate { it.substringBefore('=') to it.substringAfter('=') }
            }
            for (key in keys) {
                val matches = filters.getValue(key).all { f ->
                    (if (f.column >= 0) fields.getOrNull(f.column) else extra[f.tag]) == f.value
                }
                if (matches) values.getValue(key).add(value)
            }
            return true
        }

        fun stats(key: MetricKey, wanted: List<String>): Map<String, Double> {
            val sorted = values.getValue(key).sorted()
            return wanted.mapNotNull { stat ->
                val pct = stat.removeSurrounding("p(", ")").takeIf { it != stat }?.toDoubleOrNull()
                val v = when {
                    stat == "avg" -> if (sorted.isEmpty()) 0.0 else sorted.sum() / sorted.size
                    stat == "min" -> sorted.firstOrNull() ?: 0.0
                    stat == "max" -> sorted.lastOrNull() ?: 0.0
                    stat == "count" -> sorted.size.toDouble()
                    stat == "med" -> percentile(sorted, 50.0)
                    pct != null -> percentile(sorted, pct)
                    else -> null
                }
                v?.let { stat to it }
            }.toMap()
        }

        /** Go's `%f`, which writes infinities as `+Inf` and `-Inf`. */
        private fun sampleValue(text: String): Double? = when (text) {
            "+Inf" -> Double.POSITIVE_INFINITY
            "-Inf" -> Double.NEGATIVE_INFINITY
            else -> text.toDoubleOrNull()
        }

        private fun latin1(s: String) = String(s.toByteArray(Charsets.UTF_8), Charsets.ISO_8859_1)
    }

    /** A growable array of doubles: a 10-minute run has millions of samples, too many to box. */
    private class DoubleList {
        private var data = DoubleArray(1024)
        private var size = 0

        fun add(v: Double) {
            if (size == data.size) data = data.copyOf(size * 2)
            data[size++] = v
        }

        fun sorted(): DoubleArray = data.copyOf(size).also { it.sort() }
    }

    /**
     * A CSV record's fields, as Go's `encoding/csv` (k6's writer) quotes them: a field holding
     * a comma, a quote or a line break (an error message, say) is quoted, its quotes doubled.
     */
    internal fun csvFields(record: String): List<String> {
        if ('"' !in record) return record.split(',')
        val fields = mutableListOf<String>()
        val field = StringBuilder()
        var quoted = false
        var i = 0
        while (i < record.length) {
            val c = record[i]
            when {
                quoted && c == '"' && record.getOrNull(i + 1) == '"' -> field.append('"').also { i++ }
                c == '"' -> quoted = !quoted
                c == ',' && !quoted -> fields += field.toString().also { field.clear() }
                else -> field.append(c)
            }
            i++
        }
        fields += field.toString()
        return fields
    }

    /** Streams every segment's records into one file under one header; the segments must agree on the header. */
    private fun copySamples(sources: List<File>, target: File, trends: TrendSamples) {
        var header: String? = null
        writeAtomically(target, gzip = true) { out ->
            for (source in sources) {
                if (!source.isFile) throw IllegalStateException("$source is missing: that segment's samples did not arrive")
                Records(source).use { records ->
                    val first = records.next() ?: throw IllegalStateException("$source is empty: not even k6's CSV header")
                    when (header) {
                        null -> {
                            header = first
                            trends.header(csvFields(first))
                            out.write(first)
                            out.write('\n'.code)
                        }
                        first -> {}
                        else -> throw IllegalStateException(
                            "$source has the columns [$first] but ${sources.first()} has [$header]: k6 was not run alike on every segment",
                        )
                    }
                    while (true) {
                        val record = records.next() ?: break
                        if (!trends.offer(record)) throw IllegalStateException("$source line ${records.line}: no number in [$record]")
                        out.write(record)
                        out.write('\n'.code)
                    }
                }
            }
        }
    }

    /**
     * The records of a gzipped k6 CSV, each without its final newline. Read as ISO-8859-1 so
     * that the copy keeps every byte as k6 wrote it; a quoted field may span lines.
     */
    private class Records(private val file: File) : AutoCloseable {
        private val reader: Reader = try {
            file.inputStream().let { raw -> runCatching { GZIPInputStream(raw, 1 shl 16) }.onFailure { raw.close() }.getOrThrow() }
                .reader(Charsets.ISO_8859_1)
        } catch (e: IOException) {
            throw IllegalStateException("$file cannot be read as a gzipped k6 CSV: ${e.message}", e)
        }
        private val buffer = CharArray(1 shl 16)
        private var pos = 0
        private var end = 0
        private val record = StringBuilder()
        var line = 0
            private set

        fun next(): String? {
            record.setLength(0)
            var quotes = 0
            while (true) {
                if (pos == end && !fill()) {
                    if (record.isEmpty()) return null
                    if (quotes % 2 != 0) throw IllegalStateException("$file ends inside a quoted field: it was cut short")
                    line++
                    return record.toString()
                }
                var i = pos
                while (i < end && buffer[i] != '\n') {
                    if (buffer[i] == '"') quotes++
                    i++
                }
                record.appendRange(buffer, pos, i)
                pos = i
                if (i < end) {
                    pos++
                    line++
                    // An odd count of quotes so far: the line break is inside a quoted field.
                    if (quotes % 2 == 0) return record.toString()
                    record.append('\n')
                }
            }
        }

        private fun fill(): Boolean {
            val n = try {
                reader.read(buffer)
            } catch (e: IOException) {
                throw IllegalStateException("$file cannot be read after line $line (cut short?): ${e.message}", e)
            }
            pos = 0
            end = n.coerceAtLeast(0)
            return n > 0
        }

        override fun close() = reader.close()
    }

    /** Writes [target] through a temporary file, so that it is never left half-written under its own name. */
    private fun writeAtomically(target: File, gzip: Boolean = false, write: (Writer) -> Unit) {
        val part = File(target.parentFile, "${target.name}.part")
        try {
            val stream = part.outputStream().buffered(1 shl 16)
            val out = if (gzip) GZIPOutputStream(stream, 1 shl 16) else stream
            try {
                out.writer(if (gzip) Charsets.ISO_8859_1 else Charsets.UTF_8).buffered(1 shl 16).use(write)
            } catch (e: IOException) {
                throw IllegalStateException("cannot write $part: ${e.message}", e)
            }
            Files.move(part.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
        } finally {
            part.delete()
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
