package lab.support

import java.io.File

/**
 * How the lab records virtual-thread pinning from a JVM it starts: every
 * `jdk.VirtualThreadPinned` event, however short, with its stack, written when the JVM exits.
 * The pinning test and `make audit-pinning` both start servers this way.
 */
object PinningRecording {
    const val EVENT = "jdk.VirtualThreadPinned"

    /** The JVM option that records into [recording], with its one-event settings file written into [dir]. */
    fun jvmOption(recording: File, dir: File): String {
        val settings = File(dir, "pinning.jfc")
        if (!settings.isFile) settings.writeText(SETTINGS)
        return "-XX:StartFlightRecording:filename=$recording,dumponexit=true,settings=$settings"
    }

    private val SETTINGS =
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <configuration version="2.0" label="pinning">
          <event name="$EVENT">
            <setting name="enabled">true</setting>
            <setting name="stackTrace">true</setting>
            <setting name="threshold">0 ms</setting>
          </event>
        </configuration>
        """.trimIndent()
}
