package lab.bench.collect

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import kotlin.test.assertContains
import kotlin.test.assertTrue

/** Runs against a child JVM: a JVM does not attach to itself unless started to allow it, and the servers are not. */
class JcmdTest {
    private val java = File(System.getProperty("java.home"), "bin/java")

    @Test
    fun `it runs a command on another JVM by its pid, through the local attach mechanism`() {
        withIdleJvm { pid ->
            val text = Jcmd.run(pid, "VM.version")
            assertTrue(Runtime.version().feature().toString() in text, text)
        }
    }

    @Test
    fun `a command the JVM does not know fails with the JVM's reason`() {
        withIdleJvm { pid ->
            val error = assertThrows<IllegalStateException> { Jcmd.run(pid, "No.such_command") }
            assertContains(error.message.orEmpty(), "Unknown diagnostic command")
        }
    }

    /** A JVM that waits while [block] runs. */
    private fun withIdleJvm(block: (Long) -> Unit) {
        val child = ProcessBuilder(java.path, "-Xmx32m", "-cp", System.getProperty("java.class.path"), Idle::class.java.name).start()
        try {
            check(child.inputStream.bufferedReader().readLine() == "ready") { "the child JVM did not start" }
            block(child.pid())
        } finally {
            child.destroyForcibly().waitFor()
        }
    }

    object Idle {
        @JvmStatic
        fun main(args: Array<String>) {
            println("ready")
            Thread.sleep(60_000)
        }
    }
}
