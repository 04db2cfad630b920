package lab.support

import java.io.File

/**
 * The one line every lab program (each server and the stub) prints when it accepts
 * connections: `READY model=… url=… pid=…` and then its own facts. Tests and the bench
 * harness wait for it and read the bound URL from it, so its shape is declared here, once.
 */
object ReadyLine {
    private const val WORD = "READY"

    fun format(model: String, url: String, vararg facts: Pair<String, Any>): String =
        (listOf(WORD, "model=$model", "url=$url", "pid=${ProcessHandle.current().pid()}") + facts.map { (key, value) -> "$key=$value" })
            .joinToString(" ")

    /** The first ready line in [log], or null if it has none yet. */
    fun firstIn(log: File): String? = log.useLines { lines -> lines.firstOrNull { urlIn(it) != null } }

    /** The URL a ready line announces, or null if [line] is not one. */
    fun urlIn(line: String): String? = fact(line, "url")

    /** The process id a ready line announces, or null if [line] is not one. */
    fun pidIn(line: String): Long? = fact(line, "pid")?.toLongOrNull()

    /** The fact [key] a ready line announces, or null if [line] is not one or has no such fact. */
    fun fact(line: String, key: String): String? =
        if (line.startsWith("$WORD ")) line.split(' ').firstOrNull { it.startsWith("$key=") }?.removePrefix("$key=") else null
}
