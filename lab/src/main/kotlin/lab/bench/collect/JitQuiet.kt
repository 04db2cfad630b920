package lab.bench.collect

import lab.support.ProcView
import java.util.concurrent.TimeUnit

/**
 * Waits until a JVM's JIT compilers are idle: a C2 compilation holds its arenas (NMT's
 * Compiler category) while it runs, and they can be tens of MB (28 MB in one snapshot here,
 * gone in the next), so a memory snapshot taken during one puts them in the socket slope.
 * The compilers count as idle once their threads (`C1 CompilerThre`, `C2 CompilerThre`, as
 * the kernel names them) used no CPU for [quietMs].
 */
class JitQuiet(pid: Long, private val quietMs: Long = 500, private val timeoutMs: Long = 10_000) {
    private val proc = ProcView(pid)

    /**
     * Returns once the compilers are idle, or, if they never are, after [timeoutMs] or at [deadlineNs]
     * (a [System.nanoTime] instant), whichever comes first; true if they were idle.
     */
    fun await(deadlineNs: Long? = null): Boolean {
        val startNs = System.nanoTime()
        var last = compilingMs()
        var stillSinceNs = startNs
        while (elapsedMs(stillSinceNs) < quietMs) {
            if (elapsedMs(startNs) > timeoutMs || (deadlineNs != null && System.nanoTime() - deadlineNs > 0)) return false
            Thread.sleep(POLL_MS)
            val now = compilingMs()
            if (now != last) {
                last = now
                stillSinceNs = System.nanoTime()
            }
        }
        return true
    }

    private fun compilingMs() = proc.jitCpuMs()

    private fun elapsedMs(sinceNs: Long) = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNs)

    private companion object {
        const val POLL_MS = 50L
    }
}
