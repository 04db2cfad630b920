package lab.conformance

import jdk.jfr.consumer.RecordedEvent
import jdk.jfr.consumer.RecordingFile
import lab.handlers.PinTrap
import lab.support.Catalogue
import lab.support.OrdinaryPaths
import lab.support.PinningRecording
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.io.TempDir
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.io.File
import java.time.Instant
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * Virtual-thread pinning, caught by JFR: the check a project can copy to keep its own request
 * paths free of pinning. The server runs with a recording of every `jdk.VirtualThreadPinned`
 * event (no duration threshold, with stack traces) that the JVM writes when it exits; the
 * test drives the paths, stops the server, and reads the recording.
 *
 * Which traps pin depends on the JDK the tests run on (`make test JDK=21` for 21): JEP 491,
 * in JDK 24, stopped `synchronized` from pinning. The trap test checks that the recording
 * sees exactly what [PinTrap] says, so a recording that saw nothing cannot pass the first.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class VirtualThreadPinningTest {
    @TempDir
    lateinit var dir: File

    private val jdkFeature = Runtime.version().feature()

    /**
     * After a first pass over every path, none pins. The first pass may: a class that a request
     * path is the first to use is loaded and initialized under it, and on JDK 25 a virtual
     * thread that loads a class, or waits for another thread to finish initializing one, pins
     * meanwhile (measured here: Jetty `HttpClient`'s classes, loaded under the first
     * `/dashboard` calls, 6 and 7 ms). Those are printed, not failed: they happen once.
     */
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#thatCanPin")
    fun `a server's request paths pin no virtual thread once warm`(name: String) {
        lateinit var warm: Instant
        val pinned = recordPinning(name, "request-paths") { server ->
            driveRequestPaths(server)
            warm = Instant.now()
            driveRequestPaths(server)
        }
        val (steady, firstPass) = pinned.partition { it.startTime >= warm }
        println(
            "JDK $jdkFeature, first pass over the request paths: ${firstPass.size} pinned\n" +
                firstPass.joinToString("\n") { "  " + describe(it) },
        )
        assertEquals(emptyList(), steady.map(::describe), "pinned virtual threads once warm, on JDK $jdkFeature")
    }

    private fun driveRequestPaths(server: LabProcess) {
        repeat(10) { i ->
            for (path in OrdinaryPaths.round(i)) {
                assertEquals(200, LabClients.send(server.baseUrl, path).status, path)
            }
        }
        val socket = LabClients.openWebSocket(server.baseUrl)
        socket.socket.sendText("echo me", true).get(10, TimeUnit.SECONDS)
        assertEquals(SocketProbe.Event.Text("echo me"), socket.next())
        socket.socket.sendClose(1000, "done").get(10, TimeUnit.SECONDS)
    }

    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#thatCanPin")
    fun `the recording catches every trap that pins on this JDK, and no other`(name: String) {
        val requests = 3
        for (trap in PinTrap.entries) {
            val pinned = recordPinning(name, trap.slug) { server ->
                repeat(requests) { assertEquals(200, LabClients.send(server.baseUrl, "/pin/${trap.slug}?ms=20").status) }
            }
            // By time pinned, not only by events: a first call may also load a class under the
            // request (JDK 24+ records that, for a ms or so), but only a trap pins for its block.
            val pinnedMs = pinned.sumOf { it.duration.toMillis() }
            if (trap.pinsOn(jdkFeature)) {
                assertTrue(
                    pinned.size >= requests && pinnedMs >= requests * 20 * 9 / 10,
                    "${trap.slug} on JDK $jdkFeature: ${pinned.map(::describe)}",
                )
            } else {
                assertTrue(pinnedMs < 20, "${trap.slug} must not pin on JDK $jdkFeature: ${pinned.map(::describe)}")
            }
        }
    }

    /** Runs a fresh server [name] through [drive] and returns the pinning JFR recorded meanwhile. */
    private fun recordPinning(name: String, subject: String, drive: (LabProcess) -> Unit): List<RecordedEvent> {
        val recording = File(dir, "$name-$subject.jfr")
        val server = Catalogue.named(name).start(
            "--downstream-url",
            ConformanceLab.stub.baseUrl.toString(),
            jvmOptions = listOf(PinningRecording.jvmOption(recording, dir)),
        )
        server.use { drive(it) }
        assertTrue(recording.isFile, "the server wrote no recording to $recording")
        return RecordingFile.readAllEvents(recording.toPath()).filter { it.eventType.name == PinningRecording.EVENT }
    }

    private fun describe(event: RecordedEvent): String {
        val reason = if (event.hasField("pinnedReason")) " (${event.getString("pinnedReason")})" else ""
        val frames = event.stackTrace?.frames.orEmpty().take(12).joinToString(" < ") { "${it.method.type.name}.${it.method.name}" }
        return "${event.duration.toMillis()} ms$reason: $frames"
    }
}
