package lab.bench.collect

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.lang.management.ManagementFactory
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The profile against a known truth: a child JVM whose one busy thread spends three times the CPU in one method as in
 * another, by its own CPU clock, beside a thread that only sleeps. Started and stopped as the sweep does, through the
 * attach mechanism.
 */
class JfrProfileTest {
    private val java = File(System.getProperty("java.home"), "bin/java")

    @Test
    fun `a method's CPU samples are its share of the thread's CPU time, and a sleeping thread has none`(@TempDir dir: File) {
        val cpu = profileOfBurner(dir).getValue("cpu")
        val samples = cpu.lines().filter {
            it.isNotBlank()
        }.associate { it.substringBeforeLast(' ') to it.substringAfterLast(' ').toLong() }
        fun inMethod(method: String) = samples.filterKeys { stack -> stack.split(';').any { it.endsWith(".$method") } }.values.sum()
        val heavy = inMethod("spinHeavy")
        val light = inMethod("spinLight")
        assertTrue(heavy + light >= MIN_SAMPLES, "too few samples to judge: $heavy in spinHeavy, $light in spinLight\n$cpu")
        val ratio = heavy.toDouble() / light
        assertTrue(ratio in 2.0..4.5, "spinHeavy used three times spinLight's CPU; the samples say ${"%.2f".format(ratio)}\n$cpu")
        assertEquals(0, samples.filterKeys { it.startsWith("burner-sleeps") }.values.sum(), cpu)
        assertTrue(
            samples.keys.filter {
                ".spinHeavy" in it
            }.all { it.startsWith("burner-busy;") },
            "a stack starts at its thread's family",
        )
    }

    @Test
    fun `the settings declare the samples the fold reads`() {
        val settings = JfrProfile.settings()
        listOf(JfrProfile.CPU_TIME_SAMPLE, JfrProfile.EXECUTION_SAMPLE, "jdk.Deoptimization", "jdk.ObjectAllocationSample")
            .forEach { assertTrue("<event name=\"$it\"><setting name=\"enabled\">true</setting>" in settings, it) }
    }

    /** The folded files of a profile of [Burner] over [WINDOW_MS], by kind. */
    private fun profileOfBurner(dir: File): Map<String, String> {
        val child = ProcessBuilder(java.path, "-Xmx64m", "-cp", System.getProperty("java.class.path"), Burner::class.java.name).start()
        try {
            check(child.inputStream.bufferedReader().readLine() == "ready") { "the child JVM did not start" }
            val profile = JfrProfile.write(dir)
            profile.start(child.pid())
            Thread.sleep(WINDOW_MS)
            val files = profile.stop(child.pid(), dir, "profile-burner")
            assertTrue(files.first().isFile && files.first().name == "profile-burner.jfr")
            return files.filter { it.name.endsWith(".folded") }.associate {
                it.name.removePrefix("profile-burner.").removeSuffix(".folded") to
                    it.readText()
            }
        } finally {
            child.destroyForcibly().waitFor()
        }
    }

    /** One thread spins 30 ms of its CPU time in [spinHeavy], then 10 in [spinLight], over and over; another sleeps. */
    object Burner {
        private val threads = ManagementFactory.getThreadMXBean()

        @JvmStatic
        fun main(args: Array<String>) {
            Thread({ Thread.sleep(120_000) }, "burner-sleeps-1").apply { isDaemon = true }.start()
            val busy = Runnable {
                while (true) {
                    spinHeavy()
                    spinLight()
                }
            }
            Thread(busy, "burner-busy-1").apply { isDaemon = true }.start()
            println("ready")
            Thread.sleep(120_000)
        }

        @JvmStatic
        fun spinHeavy() = spin(30)

        @JvmStatic
        fun spinLight() = spin(10)

        private var sink = 0L

        /** Java work between reads of the thread's CPU clock, a native call the sampler cannot walk at once. */
        private fun spin(cpuMs: Long) {
            val until = threads.currentThreadCpuTime + cpuMs * 1_000_000
            while (threads.currentThreadCpuTime < until) {
                repeat(JAVA_WORK_BETWEEN_READS) { sink = sink * 31 + it }
            }
        }

        private const val JAVA_WORK_BETWEEN_READS = 20_000
    }

    companion object {
        const val WINDOW_MS = 3_000L

        /** A second of one thread's CPU, at a sample every 10 ms, is 100 samples. */
        const val MIN_SAMPLES = 100
    }
}
