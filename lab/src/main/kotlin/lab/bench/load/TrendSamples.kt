package lab.bench.load

import lab.bench.load.K6Merge.MetricKey

/**
 * The values of each trend the segments' summaries list, gathered from the CSV rows while
 * [K6SampleCopy] streams them, and then k6's figures (avg, min, med, max, p(N)) over all of them.
 * Only the values are kept, as primitive arrays: a 10-minute run has millions of samples.
 */
internal class TrendSamples(keys: List<MetricKey>) {
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

    /** The CSV header's column names, which say where [offer] finds each field. */
    fun header(columns: List<String>) {
        val index = columns.withIndex().associate { it.value to it.index }
        valueColumn = index["metric_value"] ?: -1
        extraColumn = index["extra_tags"] ?: -1
        val notTags = setOf("metric_name", "timestamp", "metric_value", "extra_tags", "metadata")
        filters = values.keys.associateWith { key ->
            key.tags.map { (tag, value) -> Filter(if (tag in notTags) -1 else index[tag] ?: -1, latin1(tag), latin1(value)) }
        }
    }

    /** A CSV row's [fields]: false if it is a trend row this file cannot give a value for. */
    fun offer(fields: List<String>): Boolean {
        val keys = fields.firstOrNull()?.let(byName::get) ?: return true
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

    /** The [wanted] figures (as a summary names them: `avg`, `p(99.9)`, ...) of the trend [key]. */
    fun stats(key: MetricKey, wanted: List<String>): Map<String, Double> {
        val sorted = values.getValue(key).sorted()
        return wanted.mapNotNull { stat ->
            val pct = stat.removeSurrounding("p(", ")").takeIf { it != stat }?.toDoubleOrNull()
            val v = when {
                stat == "avg" -> if (sorted.isEmpty()) 0.0 else sorted.sum() / sorted.size
                stat == "min" -> sorted.firstOrNull() ?: 0.0
                stat == "max" -> sorted.lastOrNull() ?: 0.0
                stat == "count" -> sorted.size.toDouble()
                stat == "med" -> K6Merge.percentile(sorted, 50.0)
                pct != null -> K6Merge.percentile(sorted, pct)
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
