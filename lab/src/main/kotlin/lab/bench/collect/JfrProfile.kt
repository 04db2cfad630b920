package lab.bench.collect

import jdk.jfr.consumer.RecordedEvent
import jdk.jfr.consumer.RecordedThread
import jdk.jfr.consumer.RecordingFile
import java.io.File

/**
 * Where a server's CPU goes in a measured window, sampled by JFR: a recording started and stopped through the attach
 * mechanism ([Jcmd]) around the window, kept as `<name>.jfr` for JMC, and folded into `<name>.<kind>.folded` files, one
 * line a distinct stack, `thread family;outermost frame;…;innermost frame count`, the format flame-graph tools read.
 *
 * The CPU sample is `jdk.CPUTimeSample` (JDK 25, JEP 509): one a Java thread every [SAMPLE_PERIOD_MS] of that thread's CPU
 * time, so a stack's samples times the period is the CPU it used ([Fold.CPU], `.cpu.folded`). `jdk.ExecutionSample`, the
 * only one JDK 21 has, catches a thread running Java code every period of wall time, which says nothing of CPU spent
 * elsewhere; it is folded apart ([Fold.EXECUTION], `.execution.folded`), so a file's unit is never in doubt.
 * The JVM's own threads (compilers, GC) are not sampled: their CPU is the thread families' count (`threads.csv`).
 * Samples the JVM dropped are a stack of their own, `[samples lost]`, so a reader sees how many. JFR keeps 64 frames
 * a stack; a deeper one loses its outermost frames, and its line says `[truncated]` after the thread.
 *
 * The sampler costs the server CPU in the window: a profiled run tells where the CPU goes, not how much there is.
 */
class JfrProfile private constructor(val settings: File) {
    /** Starts the recording in the JVM [pid]; what it records until [stop] is the window's. */
    fun start(pid: Long) {
        Jcmd.run(pid, "JFR.start", "name=$NAME", "settings=${settings.absolutePath}")
    }

    /** Stops the recording into `<dir>/<name>.jfr` and folds it beside; returns the files written. */
    fun stop(pid: Long, dir: File, name: String): List<File> {
        val recording = File(dir, "$name.jfr")
        Jcmd.run(pid, "JFR.stop", "name=$NAME", "filename=${recording.absolutePath}")
        return listOf(recording) + fold(recording).map { (fold, folded) -> folded.writeTo(File(dir, "$name.${fold.kind}.folded")) }
    }

    /** One kind of sample folded into stacks: the JFR event it reads, and what weighs a sample. */
    enum class Fold(val kind: String, private val event: String, private val weightField: String?) {
        /** CPU time, in samples of [SAMPLE_PERIOD_MS] of a thread's CPU. */
        CPU("cpu", CPU_TIME_SAMPLE, null),

        /** Java code caught running, a sample every [SAMPLE_PERIOD_MS] of wall time. */
        EXECUTION("execution", EXECUTION_SAMPLE, null),

        /** What the JIT threw away, and where: one a deoptimization. */
        DEOPTIMIZATION("deoptimization", "jdk.Deoptimization", null),

        /** Bytes allocated, as JFR's allocation samples weigh them. */
        ALLOCATION("allocation-bytes", "jdk.ObjectAllocationSample", "weight"),
        ;

        /** The stacks of this kind among a recording's events, or null when it holds none. */
        fun of(all: List<RecordedEvent>): Folded? {
            val stacks = LinkedHashMap<String, Long>()
            all.filter { it.eventType.name == event }.forEach { stacks.merge(stackOf(it), weightOf(it)) { a, b -> a + b } }
            if (stacks.isEmpty()) return null
            if (this == CPU) {
                val lost = all.filter { it.eventType.name == CPU_TIME_SAMPLES_LOST && it.hasField("lostSamples") }
                    .sumOf { it.getLong("lostSamples") }
                if (lost > 0) stacks[LOST] = lost
            }
            return Folded(stacks)
        }

        private fun weightOf(event: RecordedEvent): Long = weightField?.let { event.getLong(it) } ?: 1L

        private fun stackOf(event: RecordedEvent): String {
            val frames = event.stackTrace?.frames.orEmpty().asReversed().map { "${it.method.type.name}.${it.method.name}" }
            val truncated = if (event.stackTrace?.isTruncated == true) listOf(TRUNCATED) else emptyList()
            return (listOf(familyOf(event)) + truncated + frames.ifEmpty { listOf(NO_STACK) })
                .joinToString(";") { it.replace(';', ':').replace('\n', ' ') }
        }
    }

    /** Stacks and their weights, from one event type. */
    data class Folded(val stacks: Map<String, Long>) {
        fun writeTo(file: File): File {
            file.writeText(stacks.entries.joinToString("") { (stack, weight) -> "$stack $weight\n" })
            return file
        }
    }

    companion object {
        const val NAME = "lab-profile"
        const val SAMPLE_PERIOD_MS = 10
        const val CPU_TIME_SAMPLE = "jdk.CPUTimeSample"
        const val EXECUTION_SAMPLE = "jdk.ExecutionSample"
        const val CPU_TIME_SAMPLES_LOST = "jdk.CPUTimeSamplesLost"
        const val LOST = "[samples lost]"
        const val TRUNCATED = "[truncated]"
        const val NO_STACK = "[no stack]"
        const val VIRTUAL_THREADS = "[virtual threads]"

        /** Each kind of stack [recording] holds. */
        fun fold(recording: File): Map<Fold, Folded> {
            val all = RecordingFile.readAllEvents(recording.toPath())
            return Fold.entries.mapNotNull { fold -> fold.of(all)?.let { fold to it } }.toMap()
        }

        /** Writes the settings, `profile.jfc`, into [runDir]. */
        fun write(runDir: File): JfrProfile {
            val settings = File(runDir, "profile.jfc")
            settings.writeText(settings())
            return JfrProfile(settings)
        }

        /**
         * The thread's family as the thread families' count names it from /proc: the kernel keeps the first 15
         * characters of a Java thread's name. A virtual thread has no kernel thread of its own: its samples are
         * [VIRTUAL_THREADS], which /proc counts on their carriers (`ForkJoinPool`).
         */
        private fun familyOf(event: RecordedEvent): String {
            val thread = listOf("eventThread", "sampledThread").firstNotNullOfOrNull { field ->
                if (event.hasField(field)) event.getValue<RecordedThread?>(field) else null
            }
            if (thread?.isVirtual == true) return VIRTUAL_THREADS
            val name = thread?.javaName ?: thread?.osName ?: return "[no thread]"
            return ThreadFamilies.of(name.take(KERNEL_NAME_CHARS))
        }

        private const val KERNEL_NAME_CHARS = 15

        fun settings(): String {
            val period = "$SAMPLE_PERIOD_MS ms"
            val events = listOf(
                // JEP 509's form: a sample every so much of a thread's CPU time.
                JfrRecording.event(CPU_TIME_SAMPLE, "throttle" to "${SAMPLE_PERIOD_MS}ms"),
                JfrRecording.event(CPU_TIME_SAMPLES_LOST),
                JfrRecording.event(EXECUTION_SAMPLE, "period" to period),
                JfrRecording.event("jdk.Deoptimization", "stackTrace" to "true"),
                JfrRecording.event("jdk.ObjectAllocationSample", "throttle" to "150/s", "stackTrace" to "true"),
                JfrRecording.event("jdk.Compilation", "threshold" to "0 ms"),
            )
            return """<?xml version="1.0" encoding="UTF-8"?>
                |<configuration version="2.0" label="lab profile">
                |${events.joinToString("\n")}
                |</configuration>
                |
            """.trimMargin()
        }
    }
}
