package lab.bench

import lab.support.Catalogue
import lab.support.Children
import lab.support.JvmFlags
import lab.support.Provenance
import java.io.File
import kotlin.test.fail

/**
 * A catalogue server started for a test as the bench starts it (the bench's heap, collector and
 * access flags; no JFR) on a free loopback port, on the JDK `make test` names, and stopped when
 * the test closes it. For a test that holds a part of the harness to a real server.
 */
class TestServer private constructor(private val process: Process, val url: String) : AutoCloseable {
    /** The server's process id, for a test that stops and resumes it (SIGSTOP, SIGCONT). */
    val pid: Long get() = process.pid()

    override fun close() {
        Children.stop(process, graceSeconds = 5)
    }

    companion object {
        fun start(root: File, name: String, dir: File, heapMb: Int = 256): TestServer {
            val jdk = fromEnv("LAB_SERVER_JDK", "")
            val command = listOf(File(jdk, "bin/java").path) + JvmFlags.common(heapMb, Provenance.Jdk.read(jdk).feature) +
                listOf("-jar", Catalogue.named(name).jarIn(root).path, "--port", "0")
            val log = File(dir, "server.log")
            val process = Children.start(command, log)
            val url = Children.awaitReady(process, log, 60)
            if (url == null) {
                Children.stop(process, graceSeconds = 0)
                fail("$name did not print its READY line; see $log")
            }
            return TestServer(process, url)
        }

        /** A file `make test` passes in the environment variable [name], or a failure that says to set it. */
        fun fromEnv(name: String, what: String): File = File(System.getenv(name) ?: fail("set $name$what; `make test` does"))

        /** The test's own folder under the module's results, emptied first. */
        fun resultsDir(name: String): File = File(System.getProperty("lab.results"), name).apply {
            deleteRecursively()
            mkdirs()
        }
    }
}
