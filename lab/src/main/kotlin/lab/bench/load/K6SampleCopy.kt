package lab.bench.load

import de.siegmar.fastcsv.reader.CsvParseException
import de.siegmar.fastcsv.reader.CsvReader
import lab.support.writeAtomically
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.FilterInputStream
import java.io.IOException
import java.io.InputStream
import java.io.OutputStream
import java.io.UncheckedIOException
import java.util.zip.GZIPInputStream
import java.util.zip.GZIPOutputStream

/**
 * Streams every segment's `k6-metrics.csv.gz` into one under one header, and hands each trend
 * row to [TrendSamples] on the way.
 *
 * The copy is of bytes, the parsing FastCSV's. The merged file must hold each row exactly as k6
 * wrote it, and writing parsed fields back out cannot promise that: Go's `encoding/csv` (k6's
 * writer) quotes by rules of its own (a field starting with a space, say), which the writers of
 * FastCSV and Commons CSV do not follow. So the decompressed bytes go to the merged file untouched, and FastCSV parses
 * the same bytes on their way through ([CopyingInputStream]), quoted fields and line breaks in
 * them included.
 *
 * Most of a merge's time is gzip compressing the merged file, not the parsing (docs/JOURNAL.md,
 * "Figures that were in the harness's comments").
 */
internal object K6SampleCopy {
    /**
     * Writes [sources]' rows into [target], one header first; the segments must agree on it.
     * A file missing, not gzip, cut short or not k6's CSV throws [IllegalStateException] naming it.
     */
    fun copy(sources: List<File>, target: File, trends: TrendSamples) {
        var header: String? = null
        writeAtomically(target) { file ->
            GZIPOutputStream(file, 1 shl 16).use { out ->
                for (source in sources) {
                    if (!source.isFile) throw IllegalStateException("$source is missing: that segment's samples did not arrive")
                    open(source).use { input ->
                        val first = readHeader(source, input)
                        if (header == null) {
                            header = first
                            trends.header(CsvReader.builder().ofSingleCsvRecord(first).fields)
                            out.write(first.toByteArray(Charsets.ISO_8859_1))
                            out.write('\n'.code)
                        }
                        check(first == header) {
                            "$source has the columns [$first] but ${sources.first()} has [$header]: k6 was not run alike on every segment"
                        }
                        copyRows(source, input, out, trends)
                    }
                }
            }
        }
    }

    /** Everything after the header: copied as it is, and each row parsed and offered to [trends]. */
    private fun copyRows(source: File, input: InputStream, out: OutputStream, trends: TrendSamples) {
        val copying = CopyingInputStream(input, out)
        // The file's own line numbers: FastCSV counts from the line after the header.
        var line = 1L
        try {
            // A quote left open at the end is what a k6 killed mid-write leaves. A row short of
            // fields is let through: TrendSamples.offer judges it by the fields it needs.
            CsvReader.builder().allowUnclosedQuote(false).allowMissingFields(true).allowExtraFields(true)
                .ofCsvRecord(copying, Charsets.ISO_8859_1).use { records ->
                    for (record in records) {
                        line = record.startingLineNumber + 1
                        if (!trends.offer(record.fields)) throw IllegalStateException("$source line $line: no number in ${record.fields}")
                    }
                }
        } catch (e: RuntimeException) {
            if (e !is UncheckedIOException && e !is CsvParseException) throw e
            copying.writeFailure?.let { throw it }
            throw IllegalStateException("$source cannot be read after line $line (cut short?): ${(e.cause ?: e).message}", e)
        }
        if (!copying.endsWithNewline) out.write('\n'.code)
    }

    private fun open(file: File): InputStream = try {
        file.inputStream().let { raw -> runCatching { GZIPInputStream(raw, 1 shl 16) }.onFailure { raw.close() }.getOrThrow() }
    } catch (e: IOException) {
        throw IllegalStateException("$file cannot be read as a gzipped k6 CSV: ${e.message}", e)
    }

    /**
     * The first line, without its newline: k6's column names, which it never quotes. Read as
     * ISO-8859-1, one char a byte, so that it is written back byte for byte.
     */
    private fun readHeader(file: File, input: InputStream): String {
        val line = ByteArrayOutputStream()
        while (true) {
            val b = try {
                input.read()
            } catch (e: IOException) {
                throw IllegalStateException("$file cannot be read as a gzipped k6 CSV (cut short?): ${e.message}", e)
            }
            if (b >= 0 && b != '\n'.code) {
                line.write(b)
            } else if (line.size() > 0) {
                return line.toString(Charsets.ISO_8859_1)
            } else {
                val what = if (b < 0) "is empty" else "starts with an empty line"
                throw IllegalStateException("$file $what: not even k6's CSV header")
            }
        }
    }
}

/**
 * The bytes of [input] as read, each also written to [copy] on the way: the parser reads the
 * segment, and the merged file gets exactly what it read.
 */
private class CopyingInputStream(input: InputStream, private val copy: OutputStream) : FilterInputStream(input) {
    /** Whether the last byte copied was a newline (or none was): else the merged file needs one before the next segment. */
    var endsWithNewline = true
        private set

    /** Why writing [copy] failed, if it did: the parser reports it as a failure to read. */
    var writeFailure: IOException? = null
        private set

    override fun read(): Int = super.read().also { if (it >= 0) copied(byteArrayOf(it.toByte()), 0, 1) }

    override fun read(b: ByteArray, off: Int, len: Int): Int = super.read(b, off, len).also { if (it > 0) copied(b, off, it) }

    /** Skipped bytes would be missing from the copy. */
    override fun skip(n: Long): Long = throw UnsupportedOperationException("skipping would leave bytes out of the copy")

    override fun markSupported() = false

    private fun copied(b: ByteArray, off: Int, n: Int) {
        try {
            copy.write(b, off, n)
        } catch (e: IOException) {
            writeFailure = e
            throw e
        }
        endsWithNewline = b[off + n - 1] == '\n'.code.toByte()
    }
}
