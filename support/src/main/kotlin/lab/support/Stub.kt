package lab.support

import java.io.File

/**
 * The downstream stub that `/dashboard` calls, as every lab program starts it: from its jar, on a
 * free loopback port, answering after [latencyMs]. It is no server of the catalogue: it is
 * not measured, only called.
 */
object Stub {
    const val JAR = "stub/target/stub.jar"

    fun command(java: String, repo: File, latencyMs: Long): List<String> =
        listOf(java, "-jar", File(repo, JAR).path, "--port", "0", "--latency-ms", latencyMs.toString())
}
