package lab.bench.collect

import lab.bench.folder.SeriesCsv
import java.io.File
import java.net.Inet4Address
import java.net.InetAddress
import java.net.NetworkInterface
import java.time.Instant

/**
 * The server's response time as the wire saw it: for each HTTP request to the server's port,
 * from the kernel's arrival stamp on the request's first segment to the stamp on the
 * response's first segment, into `wire.csv` (time_s, phase, endpoint, ms).
 *
 * Why, beside k6's own figure: k6 times a request from its own side of the socket, so its
 * latency also holds every delay on the load generator's CPU, which it shares with the stub and
 * the harness: with the idle sockets open, k6's /json p99 was several times the wire's over the
 * same seconds (docs/JOURNAL.md, "Figures that were in the harness's comments"). This one holds
 * only the server's host: its kernel, its JVM and its handler.
 *
 * Read on the interface that holds the servers' address ([PacketSocket]): loopback when k6
 * runs beside them, the private network's interface when load generators send from other hosts
 * (`make bench-vps LOADGEN=...`). There, k6's figure less this one is what the network and the
 * load generator add. k6 keeps one request in flight per connection, so a response belongs to
 * the last request on its client address and port; a response with no request open (a
 * WebSocket frame) is not a response.
 */
class WireLatency private constructor(
    private val socket: PacketSocket,
    private val serverPort: Int,
    out: File,
    private val clock: RunClock,
) : AutoCloseable {
    private val writer = SeriesCsv(out.bufferedWriter(), out.name)
    private val pairing = Pairing(serverPort)

    @Volatile private var running = true

    /** Once closing, when reading stops even if packets keep coming (the load's own, until k6 stops). */
    @Volatile private var drainUntilNs = Long.MAX_VALUE
    private val reader = Thread.ofPlatform().daemon().name("wire-latency").unstarted(::read)

    /** Packets the kernel dropped because this reader fell behind; its requests are missing from `wire.csv`. */
    @Volatile var droppedPackets = 0L
        private set

    /**
     * Told of each answer as it is read, after its row: when the request arrived on the clock, its phase, its endpoint and
     * the response time in ms (the curve's search reads it, lab.bench.load.CurveSearch). Set before [start].
     */
    @Volatile var onAnswer: ((atSeconds: Double, phase: String, endpoint: String, ms: Double) -> Unit)? = null

    fun start() = reader.start()

    private fun read() {
        val bytes = ByteArray(HEADER_BYTES)
        while (true) {
            // Once closing, what already arrived is still read: until the queue is empty (a read times out) or the drain's time is up.
            if (!running && System.nanoTime() > drainUntilNs) break
            val packet = socket.receive(bytes) ?: if (running) continue else break
            val segment = TcpSegment.parse(bytes, packet.length) ?: continue
            val answered = pairing.add(segment, packet.epochNs) ?: continue
            val at = clock.secondsAt(Instant.ofEpochSecond(0, answered.requestEpochNs))
            val phase = clock.phase(at)
            writer.row(at, phase, answered.endpoint, answered.nanos / 1e6)
            onAnswer?.invoke(at, phase, answered.endpoint, answered.nanos / 1e6)
        }
    }

    /** Reads what has arrived, until a read times out or for [DRAIN_MS] at most, then closes the socket and `wire.csv`. */
    override fun close() {
        drainUntilNs = System.nanoTime() + DRAIN_MS * 1_000_000
        running = false
        reader.join()
        droppedPackets = socket.statistics().second
        socket.close()
        writer.close()
    }

    /** The IPv4 addresses, TCP ports and payload of a segment; the payload's first bytes only, as many as were read. */
    class TcpSegment(
        val sourceAddress: Int,
        val sourcePort: Int,
        val destinationAddress: Int,
        val destinationPort: Int,
        val payloadBytes: Int,
        val payloadStart: String,
    ) {
        companion object {
            private const val TCP = 6

            /** The segment in [length] bytes of an IPv4 packet; null for anything else. */
            fun parse(packet: ByteArray, length: Int): TcpSegment? {
                if (length < 20 || packet[0].toInt() shr 4 != 4 || packet[9].toInt() != TCP) return null
                val ipHeader = (packet[0].toInt() and 0x0F) * 4
                val total = u16(packet, 2)
                if (length < ipHeader + 20) return null
                val tcpHeader = (packet[ipHeader + 12].toInt() ushr 4 and 0x0F) * 4
                val payload = ipHeader + tcpHeader
                val start = if (length >
                    payload
                ) {
                    String(packet, payload, minOf(length - payload, PREFIX_BYTES), Charsets.ISO_8859_1)
                } else {
                    ""
                }
                return TcpSegment(
                    sourceAddress = u32(packet, SOURCE_ADDRESS),
                    sourcePort = u16(packet, ipHeader),
                    destinationAddress = u32(packet, DESTINATION_ADDRESS),
                    destinationPort = u16(packet, ipHeader + 2),
                    payloadBytes = maxOf(0, total - payload),
                    payloadStart = start,
                )
            }

            private fun u16(bytes: ByteArray, at: Int) = (bytes[at].toInt() and 0xFF shl 8) or (bytes[at + 1].toInt() and 0xFF)

            private fun u32(bytes: ByteArray, at: Int) = (u16(bytes, at) shl 16) or u16(bytes, at + 2)

            private const val SOURCE_ADDRESS = 12
            private const val DESTINATION_ADDRESS = 16

            /** Enough for `GET /dashboard/`: the method and the path's first part. */
            const val PREFIX_BYTES = 40
        }
    }

    /** A request the server answered: its endpoint (the path's first part), when it arrived, and how long the answer took. */
    data class Answered(val endpoint: String, val requestEpochNs: Long, val nanos: Long)

    /**
     * Matches each response to the request open on its client's address and port: two load generators may each send from
     * the same port.
     */
    class Pairing(private val serverPort: Int) {
        private class Open(val endpoint: String, val epochNs: Long)

        private val open = HashMap<Long, Open>()

        /** Takes the next segment in arrival order; gives the request it answers, if it is a response's first. */
        fun add(segment: TcpSegment, epochNs: Long): Answered? {
            if (segment.payloadBytes == 0) return null
            if (segment.destinationPort == serverPort) {
                endpointOf(segment.payloadStart)?.let { open[client(segment.sourceAddress, segment.sourcePort)] = Open(it, epochNs) }
                return null
            }
            if (segment.sourcePort != serverPort) return null
            val request = open.remove(client(segment.destinationAddress, segment.destinationPort)) ?: return null
            return Answered(request.endpoint, request.epochNs, epochNs - request.epochNs)
        }

        private fun client(address: Int, port: Int): Long = (address.toLong() and 0xFFFF_FFFFL shl 16) or port.toLong()

        companion object {
            private val REQUEST_LINE = Regex("^[A-Z]+ /([^ /?]*)")

            /** `json` for `GET /json HTTP/1.1`, `dashboard` for `GET /dashboard/user-7 ...`; null for a segment that starts no request. */
            fun endpointOf(payloadStart: String): String? = REQUEST_LINE.find(payloadStart)?.groupValues?.get(1)
        }
    }

    companion object {
        private const val HEADER_BYTES = 60 + 60 + TcpSegment.PREFIX_BYTES
        private const val READ_TIMEOUT_MS = 200L
        private const val DRAIN_MS = 1_000L

        /**
         * Starts following requests to [serverPort] on the interface that holds [bindAddress]; throws
         * [PacketSocket.Unavailable] where no packet socket can be had there.
         */
        fun open(bindAddress: String, serverPort: Int, out: File, clock: RunClock): WireLatency =
            WireLatency(PacketSocket.open(deviceOf(bindAddress), serverPort, READ_TIMEOUT_MS), serverPort, out, clock)

        /** The name of this host's interface that holds [address] (in this process's network namespace). */
        fun deviceOf(address: String): String {
            val inet = runCatching { InetAddress.getByName(address) }.getOrNull()
                ?: throw PacketSocket.Unavailable("$address is not an address")
            // The filter and the parser read IPv4 only: an IPv6 address would give an empty wire.csv, not a refusal.
            if (inet !is Inet4Address) throw PacketSocket.Unavailable("the wire is read for IPv4 only, and $address is not IPv4")
            if (inet.isLoopbackAddress) return PacketSocket.LOOPBACK
            return NetworkInterface.getByInetAddress(inet)?.name
                ?: throw PacketSocket.Unavailable("no interface of this host holds $address")
        }
    }
}
