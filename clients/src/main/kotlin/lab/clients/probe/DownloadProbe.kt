package lab.clients.probe

import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import java.lang.management.ManagementFactory
import java.util.concurrent.TimeUnit

/**
 * Times one download of a `/bytes` body, as the large-downloads article does: the client is
 * already open and warm, so the time is the request and the transfer alone. The body goes to a
 * sink that only counts, since checking each byte would cost more than loopback moves it; the
 * warm-up download is the one checked byte by byte. curl is the native baseline.
 */
class DownloadProbe(private val timeoutMs: Long) {
    fun download(
        kind: ClientKind,
        client: ClientUnderTest,
        server: String,
        serverUrl: String,
        sizeBytes: Long,
        repeat: Int,
    ): DownloadSample {
        val check = if (repeat == 0) PayloadCheck(sizeBytes) else null
        val sink = check ?: BodySink { _, _, _ -> }
        val allocatedBefore = allocatedBytes()
        val startedNs = System.nanoTime()
        val received = try {
            runBlocking { withTimeout(timeoutMs) { client.download(url(serverUrl, sizeBytes), sink) } }
        } catch (e: Exception) {
            return DownloadSample(kind.slug, server, sizeBytes, repeat, error = "${e::class.simpleName}: ${e.message}")
        }
        val seconds = (System.nanoTime() - startedNs) / 1e9
        val allocated = allocatedBytes() - allocatedBefore
        return DownloadSample(
            client = kind.slug, server = server, sizeBytes = sizeBytes, repeat = repeat, receivedBytes = received,
            seconds = seconds, mbPerSecond = received / 1e6 / seconds, allocatedBytes = allocated,
            verified = check != null, exact = check?.exact,
            error = when {
                check != null && !check.exact -> check.describe()
                received != sizeBytes -> "received $received bytes of $sizeBytes"
                else -> null
            },
        )
    }

    /** curl into /dev/null; its own `time_total` (connect to last byte), so process start is not counted. */
    fun curl(server: String, serverUrl: String, sizeBytes: Long, repeat: Int): DownloadSample {
        val process = try {
            ProcessBuilder(
                "curl",
                "--silent",
                "--show-error",
                "--output",
                "/dev/null",
                "--write-out",
                "%{http_code} %{size_download} %{time_total}",
                url(serverUrl, sizeBytes),
            )
                .redirectErrorStream(true).start()
        } catch (e: java.io.IOException) {
            return DownloadSample(CURL, server, sizeBytes, repeat, error = "curl is not on PATH (apt-get install curl): no native baseline")
        }
        if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor()
            return DownloadSample(CURL, server, sizeBytes, repeat, error = "curl did not finish within $timeoutMs ms")
        }
        val output = process.inputStream.readAllBytes().decodeToString().trim()
        val fields = output.split(' ')
        if (process.exitValue() != 0 || fields.size != 3 || fields[0] != "200") {
            return DownloadSample(CURL, server, sizeBytes, repeat, error = "curl failed: $output")
        }
        val received = fields[1].toLong()
        val seconds = fields[2].toDouble()
        return DownloadSample(
            client = CURL,
            server = server,
            sizeBytes = sizeBytes,
            repeat = repeat,
            receivedBytes = received,
            seconds = seconds,
            mbPerSecond = received / 1e6 / seconds,
            error = if (received != sizeBytes) "received $received bytes of $sizeBytes" else null,
        )
    }

    companion object {
        const val CURL = "curl"

        fun url(serverUrl: String, sizeBytes: Long) = "$serverUrl/bytes?size=$sizeBytes"

        /** Every thread's allocation since the JVM started (JDK 21+), terminated threads included. */
        fun allocatedBytes(): Long = (ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean).totalThreadAllocatedBytes
    }
}
