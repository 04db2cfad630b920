package lab.io

/**
 * The figures the 2021 article published, to print beside today's (seed: `shared/seeds/ktor-io-throughput.txt`).
 *
 * They were measured on Ktor 1.x, on a machine the article does not describe, as the mean of 20 whole
 * 128 MiB reads or writes; the table here shows medians, so only the order of magnitude compares. The
 * article's "Stream Read" is taken to be [FileReadBenchmark]'s `inputStream`, and its "JVM socket write" a
 * blocking `Socket` on a platform thread (`blockingSocketPlatform`): its source code is not in the seed.
 */
object Published2021 {
    /** The size every published figure moved: 128 MiB. */
    const val SIZE_BYTES: Long = 134_217_728

    /** How many runs each published mean averages. */
    const val ITERATIONS: Int = 20

    /** The Ktor release line the figures were measured on. */
    const val KTOR_VERSION: String = "1.x"

    /** Mean milliseconds per whole read or write, by benchmark (class simple name, dot, method). */
    val meanMsByBenchmark: Map<String, Double> =
        mapOf(
            "FileReadBenchmark.ktorChannel" to 1239.65,
            "FileReadBenchmark.inputStream" to 58.5,
            "SocketWriteBenchmark.ktorSocket" to 675.3,
            "SocketWriteBenchmark.blockingSocketPlatform" to 87.7,
        )
}
