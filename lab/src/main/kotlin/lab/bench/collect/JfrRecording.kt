package lab.bench.collect

import java.io.File

/**
 * What JFR records in a server, and where, declared once for a run: every server that streams
 * JFR gets the same [jvmOptions], and records from its start into a repository in its working
 * directory (its pass's folder), which [JfrCollector] reads while the server writes it. Nothing
 * listens for it: the JMX stream this replaced opened a port on every interface.
 */
class JfrRecording private constructor(val settings: File) {
    /** Relative paths, so that the options are the same for every pass: each server runs in its pass's folder. */
    val jvmOptions: List<String> = listOf(
        "-XX:FlightRecorderOptions:repository=$REPOSITORY",
        // dumponexit: server.jfr, for `jfr print` and JMC, is the whole recording of an orderly exit.
        "-XX:StartFlightRecording:name=lab,settings=${settings.absolutePath},filename=$RECORDING,dumponexit=true",
    )

    companion object {
        const val REPOSITORY = "jfr-repository"
        const val RECORDING = "server.jfr"

        /** Shorter operations than this are left out: a long one over every thread explains a stall that GC pauses do not. */
        const val VM_OPERATION_THRESHOLD_MS = 10

        /** Writes the run's settings file, `lab.jfc`, into [runDir]. */
        fun write(runDir: File, pinThresholdMs: Long): JfrRecording {
            val settings = File(runDir, "lab.jfc")
            settings.writeText(settings(pinThresholdMs))
            return JfrRecording(settings)
        }

        /**
         * The folder of chunks the server started in [passDir] writes, once it exists: the JVM
         * makes one (`<date>_<pid>`) in the repository when it starts recording.
         */
        fun chunksIn(passDir: File): File? =
            File(passDir, REPOSITORY).listFiles().orEmpty().singleOrNull { it.isDirectory && it.name.matches(JVM_FOLDER) }

        /**
         * Removes what a server's recording left that holds nothing: the repository, which an
         * orderly exit empties, and the empty `server.jfr` the JVM made at start when it never
         * reached its dump at exit. A killed server's last chunk stays in the repository as it
         * was; the JDK's tools do not read an unfinished chunk, but what the collector read of
         * it is in `jfr-series.csv`.
         */
        fun tidy(passDir: File) {
            File(passDir, RECORDING).takeIf { it.isFile && it.length() == 0L }?.delete()
            File(passDir, REPOSITORY).delete()
        }

        private val JVM_FOLDER = Regex("""\d{4}(_\d\d){5}_\d+(_\d+)?""")

        /**
         * The events the collector turns into rows; others keep JFR's defaults, as they did on
         * the JMX stream, whose settings these are.
         */
        fun settings(pinThresholdMs: Long): String {
            val everySecond = "1000 ms"
            val events = listOf(
                event("jdk.VirtualThreadPinned", "stackTrace" to "true", "threshold" to "$pinThresholdMs ms"),
                event("jdk.VirtualThreadSubmitFailed"),
                event("jdk.ResidentSetSize", "period" to everySecond),
                event("jdk.GCHeapMemoryUsage", "period" to everySecond),
                event("jdk.GCHeapSummary"),
                event("jdk.GarbageCollection"),
                event("jdk.CPULoad", "period" to everySecond),
                event("jdk.JavaThreadStatistics", "period" to everySecond),
                event("jdk.ExecuteVMOperation", "threshold" to "$VM_OPERATION_THRESHOLD_MS ms"),
                // A thread that waits for ZGC to free memory stalls without any GC pause to show for it.
                event("jdk.ZAllocationStall", "threshold" to "$VM_OPERATION_THRESHOLD_MS ms"),
            )
            return """<?xml version="1.0" encoding="UTF-8"?>
                |<configuration version="2.0" label="lab server">
                |${events.joinToString("\n")}
                |</configuration>
                |
            """.trimMargin()
        }

        /** One event enabled, with its settings, as a .jfc file declares it. */
        internal fun event(name: String, vararg settings: Pair<String, String>): String =
            (listOf("enabled" to "true") + settings).joinToString("", "  <event name=\"$name\">", "</event>") { (key, value) ->
                "<setting name=\"$key\">$value</setting>"
            }
    }
}
