package lab.bench.load

import java.io.File

/**
 * What vegeta-steps' log (loadtests/vegeta-steps/main.go) says of its pool: a `pool <connections opened>` line before the first
 * step, and an `ended <attack> <requests> <connections dialled since the pool opened>` line as each attack ends.
 */
object VegetaStepsLog {
    const val FILE = "vegeta-steps.log"

    private val POOL = Regex("""pool (\d+)""")
    private val ENDED = Regex("""ended (\S+) (\d+) (\d+)""")

    /** The pool's connections: opened before the first step, and dialled after it in place of one that closed. */
    data class PoolRecord(val opened: Int, val dialledAfter: Long)

    /**
     * How many connections it opened before the first step, and how many it dialled after (the highest `ended` count), each in
     * place of one that closed (the server closed it, or a request on it timed out); null where [log] has no `pool` line.
     */
    fun pool(log: File): PoolRecord? {
        if (!log.isFile) return null
        var opened: Int? = null
        var dialledAfter = 0L
        log.useLines { lines ->
            for (line in lines) {
                POOL.matchEntire(line)?.let { opened = it.groupValues[1].toInt() }
                ENDED.matchEntire(line)?.let { dialledAfter = maxOf(dialledAfter, it.groupValues[3].toLong()) }
            }
        }
        return opened?.let { PoolRecord(it, dialledAfter) }
    }

    /** The attacks that have ended so far, by name: their last answer came in, or timed out. None where [log] is not there yet. */
    fun ended(log: File): Set<String> =
        if (!log.isFile) emptySet() else log.useLines { lines -> lines.mapNotNull { ENDED.matchEntire(it)?.groupValues?.get(1) }.toSet() }

    /** Where the pool was not the fixed [connections] every step was to go on: fewer opened, or some dialled again. */
    fun poolProblem(record: PoolRecord?, connections: Int): String? = when {
        record == null -> "vegeta-steps' log says nothing of its pool; see vegeta/$FILE"
        record.opened < connections -> "vegeta-steps opened ${record.opened} of its $connections connections before the first step"
        record.dialledAfter > 0 ->
            "vegeta-steps dialled ${record.dialledAfter} connections after its pool opened, in place of some that closed " +
                "(the server closed them, or a request on them timed out)"
        else -> null
    }
}
