package lab.bench.collect

import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertEquals

class JcmdTest {
    private val harnessJdk = File(System.getProperty("java.home"))

    @Test
    fun `a JDK without jcmd borrows the harness's`() {
        assertEquals(File(harnessJdk, "bin/jcmd"), Jcmd(File("/nonexistent-jdk")).executable)
    }

    @Test
    fun `it runs a command on a JVM by its pid, through the local attach mechanism`() {
        val text = Jcmd(harnessJdk).run(ProcessHandle.current().pid(), "VM.version")
        kotlin.test.assertTrue(Runtime.version().feature().toString() in text, text)
    }
}
