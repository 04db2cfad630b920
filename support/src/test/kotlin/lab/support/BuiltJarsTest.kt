package lab.support

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** A run starts only jars packaged after every source they are built from: their module's, and the modules it depends on. */
class BuiltJarsTest {
    @TempDir
    lateinit var repo: File

    private val hourMs = 3_600_000L
    private val builtAtMs = 1_800_000_000_000L

    private fun file(path: String, modifiedMs: Long, text: String = path) = File(repo, path).apply {
        parentFile.mkdirs()
        writeText(text)
        setLastModified(modifiedMs)
    }

    /** A checkout of three modules, every file of it an hour older than the jars below: lab depends on stub, and stub on support. */
    private fun checkout() {
        val before = builtAtMs - hourMs
        file("pom.xml", before, "<modules>\n  <module>support</module>\n  <module>stub</module>\n  <module>lab</module>\n</modules>")
        file("support/pom.xml", before, "<artifactId>support</artifactId>")
        file("stub/pom.xml", before, "<artifactId>stub</artifactId><dependency><artifactId>support</artifactId></dependency>")
        file("lab/pom.xml", before, "<artifactId>lab</artifactId><dependency><artifactId>stub</artifactId></dependency>")
        file("support/src/main/kotlin/Support.kt", before)
        file("stub/src/main/kotlin/Stub.kt", before)
        file("lab/src/main/kotlin/Main.kt", before)
    }

    private fun jars() = listOf(file("lab/target/lab.jar", builtAtMs), file("stub/target/stub.jar", builtAtMs))

    @Test
    fun `jars packaged after every source are this checkout's`() {
        checkout()
        assertNull(BuiltJars.sourceNewerThan(repo, jars()))
    }

    @Test
    fun `a source changed after a jar built from it is named, the newest of them`() {
        checkout()
        val jars = jars()
        file("support/src/main/kotlin/Support.kt", builtAtMs + 1_000)
        file("lab/src/main/kotlin/Main.kt", builtAtMs + hourMs)
        assertEquals(File(repo, "lab/src/main/kotlin/Main.kt"), BuiltJars.sourceNewerThan(repo, jars))
        assertTrue(BuiltJars.refusal(repo, File(repo, "lab/src/main/kotlin/Main.kt")).startsWith("lab/src/main/kotlin/Main.kt changed"))
    }

    @Test
    fun `a module a jar depends on, however indirectly, counts, and one it does not depend on does not`() {
        checkout()
        val jars = listOf(file("lab/target/lab.jar", builtAtMs + hourMs), file("stub/target/stub.jar", builtAtMs))
        file("lab/src/main/kotlin/Main.kt", builtAtMs + 1_000)
        assertNull(BuiltJars.sourceNewerThan(repo, jars), "stub's jar is not built from lab")
        file("support/src/main/kotlin/Support.kt", builtAtMs + 2_000)
        assertEquals(File(repo, "support/src/main/kotlin/Support.kt"), BuiltJars.sourceNewerThan(repo, jars))
    }

    @Test
    fun `a changed pom counts, a changed test, document, run folder or module outside the build does not`() {
        checkout()
        val jars = jars()
        file("lab/src/test/kotlin/MainTest.kt", builtAtMs + hourMs)
        file("README.md", builtAtMs + hourMs)
        file("results/20261203-111629-local/manifest.json", builtAtMs + hourMs)
        file("reproducers/other/src/main/kotlin/Other.kt", builtAtMs + hourMs)
        assertNull(BuiltJars.sourceNewerThan(repo, jars))
        file("stub/pom.xml", builtAtMs + hourMs, "<artifactId>stub</artifactId>")
        assertEquals(File(repo, "stub/pom.xml"), BuiltJars.sourceNewerThan(repo, jars))
    }

    @Test
    fun `before the first build there is nothing to compare`() {
        checkout()
        assertNull(BuiltJars.sourceNewerThan(repo, listOf(File(repo, "lab/target/lab.jar"))))
    }
}
