package lab.support

import java.io.File
import java.nio.file.Files
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/**
 * The folders every lab command writes into: `results/<yyyyMMdd-HHmmss>-<kind>`, so that they
 * sort by time and the report finds the newest of each kind beside a run.
 */
object RunFolder {
    fun create(resultsDir: File, kind: String): File =
        File(resultsDir, "${LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))}-$kind").apply { mkdirs() }

    /** Points `latest` in [resultsDir] at [runDir], so `make report` and a person find the newest run without its time. */
    fun linkLatest(resultsDir: File, runDir: File) {
        val latest = File(resultsDir, "latest").toPath()
        Files.deleteIfExists(latest)
        Files.createSymbolicLink(latest, runDir.toPath().fileName)
    }

    /**
     * Writes [text] (a manifest) to [file] through a temporary file moved into place, so that a
     * reader, or a run stopped mid-write, never leaves half of it under its name.
     */
    fun writeWhole(file: File, text: String) = writeAtomically(file) { it.write(text.toByteArray()) }

    /** A command's whole output (stdout and stderr), for the manifest: a tool's version, git's commit; "unknown" if it cannot run. */
    fun commandText(vararg command: String): String = try {
        val process = ProcessBuilder(*command).redirectErrorStream(true).start()
        process.inputStream.bufferedReader().readText().also { process.waitFor() }
    } catch (e: Exception) {
        "unknown"
    }
}
