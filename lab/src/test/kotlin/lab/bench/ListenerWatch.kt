package lab.bench

import java.net.InetAddress
import java.util.concurrent.TimeUnit

/**
 * What a lab program and every process it starts listen on while it runs, as `ss` sees it: the
 * sockets in LISTEN (TCP) or bound (UDP) whose owner is [root] or one of its descendants, read
 * every [everyMs] until [root] exits.
 */
class ListenerWatch(private val root: ProcessHandle, private val everyMs: Long = 500) {
    data class Listener(val pid: Long, val protocol: String, val address: String, val port: Int) {
        /** `*`, `0.0.0.0` and `[::]` are every interface; a named address is checked for what it is. */
        val onLoopback: Boolean get() = address != "*" && InetAddress.getByName(address).isLoopbackAddress
    }

    @Volatile var samples = 0
        private set
    private val seen = mutableSetOf<Listener>()
    private val thread = Thread.ofPlatform().daemon().name("listener-watch").unstarted(::watch)

    fun start() = apply { thread.start() }

    /** Everything seen listening; waits for the watch to end with [root]. */
    fun listeners(): Set<Listener> {
        thread.join(TimeUnit.SECONDS.toMillis(30))
        return synchronized(seen) { seen.toSet() }
    }

    private fun watch() {
        while (root.isAlive) {
            val pids = (sequenceOf(root) + root.descendants().toList().asSequence()).map { it.pid() }.toSet()
            val found = read().filter { it.pid in pids }
            synchronized(seen) { seen += found }
            samples++
            Thread.sleep(everyMs)
        }
    }

    companion object {
        /** Every listening socket of the machine that `ss` can name an owner for. */
        fun read(): List<Listener> {
            val ss = ProcessBuilder("ss", "-H", "-l", "-t", "-u", "-n", "-p").redirectErrorStream(true).start()
            val text = ss.inputStream.bufferedReader().readText()
            check(ss.waitFor(10, TimeUnit.SECONDS) && ss.exitValue() == 0) { "ss failed: $text" }
            return text.lines().filter { it.isNotBlank() }.flatMap(::parse)
        }

        /** One row of `ss -H -l -t -u -n -p`: `tcp LISTEN 0 4096 [::ffff:127.0.0.1]:8080 *:* users:(("java",pid=12,fd=9))`. */
        fun parse(row: String): List<Listener> {
            val fields = row.trim().split(Regex("\\s+"))
            val local = fields[4]
            val host = local.substringBeforeLast(':').removePrefix("[").removeSuffix("]").substringBefore('%')
            val port = local.substringAfterLast(':').toIntOrNull() ?: 0
            return Regex("""pid=(\d+)""").findAll(row).map { Listener(it.groupValues[1].toLong(), fields[0], host, port) }.toList()
        }
    }
}
