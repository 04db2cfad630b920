package lab.audit

import lab.handlers.PinTrap
import java.io.File

/**
 * JDK 21's own pinning report, `-Djdk.tracePinnedThreads=full`, read back from a server's log:
 * a block per pinned stack, headed `VirtualThread[#84,...]/runnable@ForkJoinPool-1-worker-1
 * reason:MONITOR`. The JDK prints each distinct stack once, so this says whether and why a
 * path pinned, not how often (JFR counts). JDK 24 and later ignore the flag.
 */
object TracePinnedThreads {
    private val header = Regex("""^VirtualThread\[.*\sreason:(\w+)\s*$""")

    data class Block(val reason: String, val frames: List<String>)

    fun read(log: File): List<Block> {
        if (!log.isFile) return emptyList()
        val blocks = mutableListOf<Block>()
        var reason: String? = null
        val frames = mutableListOf<String>()
        fun close() {
            reason?.let { blocks += Block(it, frames.toList()) }
            reason = null
            frames.clear()
        }
        for (line in log.readLines()) {
            val match = header.find(line)
            when {
                match != null -> {
                    close()
                    reason = match.groupValues[1]
                }
                reason != null && line.startsWith("    ") -> frames += line.trim()
                else -> close()
            }
        }
        close()
        return blocks
    }

    /** The reasons reported for [subject]: a trap's blocks name its `spring`; the rest are the request paths'. */
    fun reasonsFor(blocks: List<Block>, subject: String): List<String> {
        val trap = PinTrap.bySlug(subject)
        val mine = blocks.filter { block ->
            val trapOfBlock = PinTrap.entries.firstOrNull { t -> block.frames.any { "PinTrap\$${t.name}." in it } }
            if (trap != null) trapOfBlock == trap else trapOfBlock == null
        }
        return mine.map { it.reason }.distinct().sorted()
    }
}
