package lab.conformance

import lab.support.Catalogue
import lab.support.Stub
import java.util.concurrent.ConcurrentHashMap

/**
 * The processes the conformance suites share: one stub and one of each server, started on
 * first use and stopped when the test JVM exits (see [LabProcess]).
 */
object ConformanceLab {
    /** Frames above this many bytes must close the socket with 1009. */
    const val MAX_FRAME_BYTES = 4096

    /** The servers' downstream timeout here: short, so a hanging downstream costs a test little. */
    const val DOWNSTREAM_TIMEOUT_MS = 2_000L

    /** The servers' bound on a request head's arrival here: short, so a trickling client costs a test little. */
    const val REQUEST_HEAD_TIMEOUT_MS = 2_000L

    val stub: LabProcess by lazy { LabProcess.start("stub", Stub.JAR, "--latency-ms", "5") }

    private val servers = ConcurrentHashMap<String, LabProcess>()

    fun server(name: String): LabProcess = servers.computeIfAbsent(name) { freshServer(name) }

    /** A server of its own for a test that needs one just started, with the same options as the shared ones and [more]; the test stops it. */
    fun freshServer(name: String, vararg more: String): LabProcess = Catalogue.named(name).start(
        "--downstream-url",
        stub.baseUrl.toString(),
        "--max-frame-bytes",
        MAX_FRAME_BYTES.toString(),
        "--downstream-timeout-ms",
        DOWNSTREAM_TIMEOUT_MS.toString(),
        "--request-head-timeout-ms",
        REQUEST_HEAD_TIMEOUT_MS.toString(),
        *more,
    )
}
