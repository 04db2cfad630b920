package lab.floor.tasks

/**
 * Whether tasks park on a JIT that has compiled their path or on one that has compiled nothing: as a server takes its sockets
 * after warming up, or as it starts. A floor JVM's tasks park one way or the other, and so do a bench's idle sockets
 * (lab.bench.load.Profile.socketsHeadline). A virtual thread saves its frames as they are when it parks, several times larger
 * interpreted than compiled, so what it holds depends on which (docs/EXPERIMENTS.md, "Each model's floor").
 */
enum class Warmth(val slug: String) {
    /** No park-and-release round before the first step: the steps' tasks park in whatever the JIT has compiled by then. */
    COLD("cold"),

    /** [FloorDefaults.warmup]'s rounds before the first step. */
    WARM("warm"),
    ;

    /** The park-and-release rounds a JVM of [model] runs before its first step. */
    fun warmupRounds(model: Model): Int = if (this == COLD) 0 else FloorDefaults.warmup(model).rounds

    companion object {
        val slugs = entries.map { it.slug }

        fun of(slug: String): Warmth = entries.firstOrNull { it.slug == slug }
            ?: throw IllegalArgumentException("unknown warmth '$slug'; choose from ${slugs.joinToString()}")
    }
}
