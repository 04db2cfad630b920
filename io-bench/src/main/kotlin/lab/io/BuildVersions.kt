package lab.io

import java.util.Properties

/**
 * The Ktor and JMH versions this jar was built with, from `io-bench.properties`, which Maven fills in from
 * the build's own version properties. Read from the build rather than from the jars' manifests: shading
 * merges the manifests into one, and Ktor's is lost.
 */
object BuildVersions {
    private val properties: Properties =
        Properties().apply {
            val stream =
                checkNotNull(BuildVersions::class.java.getResourceAsStream("/io-bench.properties")) { "io-bench.properties is missing" }
            stream.use { load(it) }
        }

    /** The Ktor release the Ktor benchmarks ran on. */
    val ktor: String = properties.getProperty("ktor.version")

    /** The JMH release that ran the benchmarks. */
    val jmh: String = properties.getProperty("jmh.version")
}
