package lab.support

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** The provenance header says which commit a run came from, and, where the checkout had changes, which paths they were. */
class ProvenanceTest {
    @Test
    fun `a checkout's changes are named by path, tracked or not, and a rename by its new path`() {
        val porcelain = " M README.md\u0000?? notes/new file.txt\u0000R  docs/new.md\u0000docs/old.md\u0000"
        assertEquals(listOf("README.md", "notes/new file.txt", "docs/new.md"), Provenance.changedPaths(porcelain))
    }

    @Test
    fun `git's own error names no path`() {
        assertEquals(emptyList(), Provenance.changedPaths("fatal: not a git repository (or any of the parent directories): .git\n"))
    }

    @Test
    fun `a run from a checkout with an untracked file is dirty and names it, and is clean once it is committed`(@TempDir repo: File) {
        git(repo, "init", "--quiet")
        File(repo, "a change.txt").writeText("a change")
        val dirty = Provenance.start("test", Provenance.Jdk.current(), repo)
        assertTrue(dirty.gitDirty)
        assertEquals(listOf("a change.txt"), dirty.gitDirtyPaths)

        git(repo, "add", "a change.txt")
        git(repo, "-c", "user.name=lab", "-c", "user.email=lab@example.invalid", "-c", "commit.gpgsign=false", "commit", "-qm", "it")
        val clean = Provenance.start("test", Provenance.Jdk.current(), repo)
        assertFalse(clean.gitDirty)
        assertEquals(emptyList(), clean.gitDirtyPaths)
    }

    @Test
    fun `only the first paths are kept`(@TempDir repo: File) {
        git(repo, "init", "--quiet")
        repeat(Provenance.DIRTY_PATHS_KEPT + 5) { File(repo, "file-$it.txt").writeText("$it") }
        assertEquals(Provenance.DIRTY_PATHS_KEPT, Provenance.start("test", Provenance.Jdk.current(), repo).gitDirtyPaths.size)
    }

    private fun git(repo: File, vararg args: String) {
        val process = ProcessBuilder("git", "-C", repo.path, *args).redirectErrorStream(true).start()
        val output = process.inputStream.bufferedReader().readText()
        check(process.waitFor() == 0) { "git ${args.joinToString(" ")}: $output" }
    }
}
