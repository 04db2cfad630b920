package lab.bench.collect

import java.lang.foreign.Arena
import java.lang.foreign.FunctionDescriptor
import java.lang.foreign.Linker
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout.ADDRESS
import java.lang.foreign.ValueLayout.JAVA_BYTE
import java.lang.foreign.ValueLayout.JAVA_INT
import java.lang.foreign.ValueLayout.JAVA_LONG
import java.lang.foreign.ValueLayout.JAVA_SHORT
import java.lang.invoke.MethodHandle
import java.nio.ByteOrder

/**
 * A Linux packet socket (`AF_PACKET`, as tcpdump uses) on one interface: every TCP segment to
 * or from one port that passes there, with the time the kernel stamped on it as it passed, not
 * the time this process got round to reading it. That difference is the point: the reader
 * shares a CPU with the load generator (or, with load from other hosts, the server's), and its
 * own delays must not show in what it measures.
 *
 * On loopback each packet passes twice, leaving and arriving, and is read as it arrives. On any
 * other interface a packet passes once: arriving (a request), stamped as the device handed it
 * up, or leaving (an answer), stamped as it was handed to the device, after the host's queues.
 *
 * Called through the JDK's foreign-function API; opening one needs CAP_NET_RAW (root), and a
 * host without it gets [Unavailable].
 */
class PacketSocket private constructor(private val fd: Int) : AutoCloseable {
    /** One packet: its IPv4 bytes in the reader's buffer, and the kernel's stamp on it. */
    class Packet(val length: Int, val epochNs: Long)

    private val arena = Arena.ofShared()
    private val from = arena.allocate(SOCKADDR_LL_BYTES)
    private val fromLength = arena.allocate(JAVA_INT)
    private val stamp = arena.allocate(TIMESPEC_BYTES)
    private val native = arena.allocate(BUFFER_BYTES)

    /**
     * Waits up to the socket's receive timeout for the next packet passing the interface and
     * copies its first [into].size bytes (the headers are enough); null on the timeout.
     */
    fun receive(into: ByteArray): Packet? {
        fromLength.set(JAVA_INT, 0, SOCKADDR_LL_BYTES.toInt())
        val n = (RECVFROM.invokeExact(fd, native, BUFFER_BYTES, MSG_TRUNC, from, fromLength) as Long)
        if (n < 0) return null
        if ((IOCTL.invokeExact(fd, SIOCGSTAMPNS, stamp) as Int) != 0) return null
        val length = minOf(n, into.size.toLong()).toInt()
        MemorySegment.copy(native, JAVA_BYTE, 0, into, 0, length)
        return Packet(length, stamp.get(JAVA_LONG, 0) * 1_000_000_000 + stamp.get(JAVA_LONG, 8))
    }

    /** Packets the kernel handed this socket and packets it dropped (its buffer full) since the last call. */
    fun statistics(): Pair<Long, Long> {
        val stats = arena.allocate(8)
        val length = arena.allocate(JAVA_INT).also { it.set(JAVA_INT, 0, 8) }
        if ((GETSOCKOPT.invokeExact(fd, SOL_PACKET, PACKET_STATISTICS, stats, length) as Int) != 0) return 0L to 0L
        return stats.get(JAVA_INT, 0).toUInt().toLong() to stats.get(JAVA_INT, 4).toUInt().toLong()
    }

    override fun close() {
        CLOSE.invokeExact(fd) as Int
        arena.close()
    }

    /** No packet socket here; the message says why. */
    class Unavailable(message: String) : Exception(message)

    companion object {
        private const val AF_PACKET = 17
        private const val SOCK_DGRAM = 2
        private const val ETH_P_IP = 0x0800

        /** Every protocol: only such a socket sees what leaves an interface; its filter drops all but the port's TCP. */
        private const val ETH_P_ALL = 0x0003
        private const val SLL_PROTOCOL_OFFSET = 2L
        private val BIG_ENDIAN_SHORT = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN)
        private const val SOL_SOCKET = 1
        private const val SO_RCVBUFFORCE = 33
        private const val SO_RCVTIMEO = 20
        private const val SO_ATTACH_FILTER = 26
        private const val SOCK_FPROG_BYTES = 16L
        private const val SOL_PACKET = 263
        private const val PACKET_STATISTICS = 6
        private const val SIOCGSTAMPNS = 0x8907L
        private const val MSG_TRUNC = 0x20
        private const val SOCKADDR_LL_BYTES = 20L
        private const val TIMESPEC_BYTES = 16L
        private const val TIMEVAL_BYTES = 16L
        private const val BUFFER_BYTES = 65_536L

        /** Room for a few seconds of a bench's packets if the reader falls behind. */
        private const val RECEIVE_BUFFER_BYTES = 16 shl 20

        private val linker = Linker.nativeLinker()
        private val libc = linker.defaultLookup()
        private val errno = Linker.Option.captureCallState("errno")
        private val errnoLayout = Linker.Option.captureStateLayout()

        private fun function(name: String, descriptor: FunctionDescriptor, vararg options: Linker.Option): MethodHandle =
            linker.downcallHandle(libc.find(name).orElseThrow(), descriptor, *options)

        private val SOCKET = function("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno)
        private val BIND = function("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno)
        private val SETSOCKOPT =
            function("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno)
        private val GETSOCKOPT = function("getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS))
        private val RECVFROM =
            function("recvfrom", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS))
        private val IOCTL = function("ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS))
        private val CLOSE = function("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT))
        private val IF_NAMETOINDEX = function("if_nametoindex", FunctionDescriptor.of(JAVA_INT, ADDRESS))
        private val STRERROR = function("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT))

        /** Linux's loopback interface, always by this name. */
        const val LOOPBACK = "lo"

        /**
         * Opens a packet socket on [device] that reads the TCP segments to and from [tcpPort] only ([TcpPortFilter]), and whose
         * reads give up after [timeoutMs] without one.
         */
        fun open(device: String, tcpPort: Int, timeoutMs: Long): PacketSocket = Arena.ofConfined().use { arena ->
            val state = arena.allocate(errnoLayout)
            fun failure(call: String): Nothing {
                val code = state.get(JAVA_INT, 0)
                val reason = (STRERROR.invokeExact(code) as MemorySegment).reinterpret(256).getString(0)
                throw Unavailable("$call failed: $reason${if (code == EPERM) " (a packet socket needs root or CAP_NET_RAW)" else ""}")
            }
            val index = IF_NAMETOINDEX.invokeExact(arena.allocateFrom(device)) as Int
            if (index == 0) throw Unavailable("no network interface $device")
            // A socket for IPv4 alone sees a packet as it arrives, never as it leaves. On loopback that is every packet, once;
            // elsewhere an answer only leaves, so the socket takes every protocol, and the reader reads each packet there once too.
            val bound = if (device == LOOPBACK) ETH_P_IP else ETH_P_ALL
            // Protocol 0: the socket takes nothing until it is bound, so nothing is queued before its filter is in place.
            val fd = SOCKET.invokeExact(state, AF_PACKET, SOCK_DGRAM, 0) as Int
            if (fd < 0) failure("socket(AF_PACKET)")
            val socket = PacketSocket(fd)
            try {
                val program = TcpPortFilter.program(tcpPort)
                val code = arena.allocateFrom(JAVA_BYTE, *TcpPortFilter.bytes(program))
                // A struct sock_fprog: the instruction count, padding, then the pointer to them.
                val filter = arena.allocate(SOCK_FPROG_BYTES)
                filter.set(JAVA_SHORT, 0, program.size.toShort())
                filter.set(ADDRESS, 8, code)
                if ((SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_ATTACH_FILTER, filter, SOCK_FPROG_BYTES.toInt()) as Int) != 0) {
                    failure("setsockopt(SO_ATTACH_FILTER)")
                }
                val address = arena.allocate(SOCKADDR_LL_BYTES)
                address.set(JAVA_SHORT, 0, AF_PACKET.toShort())
                address.set(BIG_ENDIAN_SHORT, SLL_PROTOCOL_OFFSET, bound.toShort())
                address.set(JAVA_INT, 4, index)
                if ((BIND.invokeExact(state, fd, address, SOCKADDR_LL_BYTES.toInt()) as Int) != 0) failure("bind($device)")
                val size = arena.allocate(JAVA_INT).also { it.set(JAVA_INT, 0, RECEIVE_BUFFER_BYTES) }
                if ((SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_RCVBUFFORCE, size, 4) as Int) !=
                    0
                ) {
                    failure("setsockopt(SO_RCVBUFFORCE)")
                }
                // A timeval: seconds and microseconds.
                val timeout = arena.allocate(TIMEVAL_BYTES)
                timeout.set(JAVA_LONG, 0, timeoutMs / 1000)
                timeout.set(JAVA_LONG, 8, timeoutMs % 1000 * 1000)
                if ((SETSOCKOPT.invokeExact(state, fd, SOL_SOCKET, SO_RCVTIMEO, timeout, TIMEVAL_BYTES.toInt()) as Int) != 0) {
                    failure("setsockopt(SO_RCVTIMEO)")
                }
                return socket
            } catch (e: Throwable) {
                socket.close()
                throw e
            }
        }

        private const val EPERM = 1
    }
}
