package lab.bench

import lab.bench.collect.RunClock
import lab.bench.load.K6Load
import lab.support.ProcView
import java.util.Locale

/** The live line a long run prints every few seconds, so a person can see it is alive and how it goes. */
class Progress(private val out: (String) -> Unit = ::println) {
    fun line(
        server: String,
        clock: RunClock,
        totalSeconds: Int,
        /** The idle sockets open now, as k6 counts them. */
        openSockets: Int,
        live: K6Load.Live?,
        requestsPerSecond: Double,
        sample: ProcView.Memory?,
        heapUsedBytes: Long?,
        pinnedEvents: Long?,
        dashboardUrl: String?,
        /** What another load generator offers now, where the profile gives it the curve: `vegeta json-at-8000` (k6's rate is not it). */
        alsoOffering: String? = null,
    ) {
        val elapsed = clock.loadSeconds()
        val remaining = (totalSeconds - elapsed).coerceAtLeast(0.0)
        out(
            String.format(
                Locale.ROOT,
                "%-14s %-19s %4.0fs, %4.0fs left | sockets %6d | k6 %7.1f req/s, p95 %s | RSS %s, heap %s, threads %s | pinned %s%s",
                server, clock.phase(), elapsed, remaining,
                openSockets, requestsPerSecond,
                live?.p95Ms?.let { String.format(Locale.ROOT, "%.1f ms", it) } ?: "-",
                mib(sample?.rssBytes), mib(heapUsedBytes), sample?.threads ?: "-", pinnedEvents ?: "-",
                (alsoOffering?.let { " | $it" } ?: "") + (dashboardUrl?.let { " | k6 live $it" } ?: ""),
            ),
        )
    }

    fun say(message: String) = out(message)

    private fun mib(bytes: Long?): String = bytes?.let { "${it / (1 shl 20)} MiB" } ?: "-"
}
