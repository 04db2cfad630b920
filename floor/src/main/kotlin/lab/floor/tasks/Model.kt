package lab.floor.tasks

/**
 * The ways a task can wait, each on a primitive of its own: what `make floor` compares. [slug] is how the command line, the
 * CSV and the analysis name it, and is the model's name in servers.json.
 */
enum class Model(val slug: String, val waitsOn: String) {
    COROUTINE("coroutine", "a coroutine suspended in Channel.receive"),
    VIRTUAL("virtual", "a virtual thread parked in LinkedBlockingQueue.take"),
    PLATFORM("platform", "a platform thread blocked in LinkedBlockingQueue.take"),
    COROUTINE_VIRTUAL("coroutine-virtual", "a coroutine suspended in Channel.receive, resumed on a new virtual thread"),
    ;

    companion object {
        val slugs: List<String> = entries.map { it.slug }

        fun of(slug: String): Model = entries.firstOrNull { it.slug == slug }
            ?: throw IllegalArgumentException("unknown model '$slug'; choose from ${slugs.joinToString()}")
    }
}
