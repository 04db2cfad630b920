package lab.handlers

import jdk.jfr.consumer.RecordingStream
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals

/**
 * Each trap pins a virtual thread on exactly the JDKs [PinTrap]'s table says, as JFR sees it.
 * `make test JDK=21` and `make test JDK=25` check both sides of JEP 491.
 */
class PinTrapPinningTest {
    @ParameterizedTest
    @EnumSource(PinTrap::class)
    fun `a trap sprung on a virtual thread pins it only where the table says`(trap: PinTrap) {
        val jdk = Runtime.version().feature()
        val pinnedEvents = pinnedEventsWhile { Thread.ofVirtual().start { trap.spring(30) }.join() }
        assertEquals(trap.pinsOn(jdk), pinnedEvents > 0, "$trap on JDK $jdk: $pinnedEvents jdk.VirtualThreadPinned events")
    }

    /** Counts `jdk.VirtualThreadPinned` events of any length raised from this package while [block] runs. */
    private fun pinnedEventsWhile(block: () -> Unit): Int {
        val count = AtomicInteger()
        RecordingStream().use { stream ->
            stream.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace()
            stream.onEvent("jdk.VirtualThreadPinned") { event ->
                if (event.stackTrace?.frames.orEmpty().any { it.method.type.name.startsWith("lab.handlers.") }) {
                    count.incrementAndGet()
                }
            }
            stream.startAsync()
            block()
            // stop() flushes and waits until every event recorded so far has been delivered.
            stream.stop()
        }
        return count.get()
    }
}
