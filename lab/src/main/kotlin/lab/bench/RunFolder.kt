package lab.bench

import java.io.File
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/**
 * The folders every lab command writes into: `results/<yyyyMMdd-HHmmss>-<kind>`, so that they
 * sort by time and the report finds the newest of each kind beside a run.
 */
object RunFolder {
    fun create(resultsDir: File, kind: String): File =
        File(resultsDir, "${LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))}-$kind").apply { mkdirs() }

    /** A command's whole output (stdout and stderr), for the manifest: a tool's version, git's commit; "unknown" if it cannot run. */
    fun commandText(vararg command: String): String = try {
        val process = ProcessBuilder(*command).redirectErrorStream(true).start()
        process.inputStream.bufferedReader().readText().also { process.waitFor() }
    } catch (e: Exception) {
        "unknown"
    }
}
