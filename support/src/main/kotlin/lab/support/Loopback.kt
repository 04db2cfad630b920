package lab.support

import java.net.InetAddress
import java.net.ServerSocket

/** Loopback ports for what only this machine talks to: k6's REST API, an SSH forward. */
object Loopback {
    /** A port free on 127.0.0.1 now; the caller binds it soon after (the kernel hands out ephemeral ports in turn). */
    fun freePort(): Int = ServerSocket(0, 0, InetAddress.getLoopbackAddress()).use { it.localPort }
}
