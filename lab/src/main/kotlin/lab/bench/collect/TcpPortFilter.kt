package lab.bench.collect

import java.nio.ByteBuffer
import java.nio.ByteOrder

/**
 * A classic BPF program (much as `tcpdump ip and tcp port P` compiles to) that a packet socket
 * runs in the kernel on each packet before queueing it: only IPv4 TCP segments to or from one
 * port pass. So the reader is woken, and its buffer filled, only by the server's traffic, not by
 * the stub's, SSH's or the host's own, and what it costs the host it shares grows with the load
 * alone.
 *
 * It reads a packet as a `SOCK_DGRAM` packet socket sees it: from the IP header on.
 */
object TcpPortFilter {
    /** One `struct sock_filter`: an opcode, the jumps if true and if false (relative), and its constant. */
    data class Instruction(val code: Int, val jumpIfTrue: Int, val jumpIfFalse: Int, val k: Int)

    /** The program for [port]: its last two instructions accept (the whole packet) and drop. */
    fun program(port: Int): List<Instruction> {
        require(port in 1..65535) { "a TCP port is 1-65535, not $port" }
        val accept = 11
        val drop = 12
        fun to(target: Int, from: Int) = target - from - 1
        return listOf(
            Instruction(LD_H_ABS, 0, 0, SKF_AD_PROTOCOL), // 0: the packet's protocol, from its link layer
            Instruction(JEQ, 0, to(drop, 1), ETH_P_IP), // 1: IPv4, or drop
            Instruction(LD_B_ABS, 0, 0, 9), // 2: the IP header's protocol
            Instruction(JEQ, 0, to(drop, 3), TCP), // 3: TCP, or drop
            Instruction(LD_H_ABS, 0, 0, 6), // 4: flags and fragment offset
            Instruction(JSET, to(drop, 5), 0, FRAGMENT_OFFSET), // 5: a later fragment has no TCP header: drop
            Instruction(LDX_B_MSH, 0, 0, 0), // 6: X = the IP header's length
            Instruction(LD_H_IND, 0, 0, 0), // 7: the source port
            Instruction(JEQ, to(accept, 8), 0, port), // 8: from the port: accept
            Instruction(LD_H_IND, 0, 0, 2), // 9: the destination port
            Instruction(JEQ, to(accept, 10), to(drop, 10), port), // 10: to the port: accept, else drop
            Instruction(RET, 0, 0, WHOLE_PACKET), // 11: accept
            Instruction(RET, 0, 0, 0), // 12: drop
        )
    }

    /** [program] as the kernel takes it: 8 bytes an instruction, in this machine's byte order. */
    fun bytes(program: List<Instruction>): ByteArray {
        val buffer = ByteBuffer.allocate(program.size * INSTRUCTION_BYTES).order(ByteOrder.nativeOrder())
        for (i in program) {
            buffer.putShort(i.code.toShort()).put(i.jumpIfTrue.toByte()).put(i.jumpIfFalse.toByte()).putInt(i.k)
        }
        return buffer.array()
    }

    private const val INSTRUCTION_BYTES = 8

    // linux/filter.h and linux/bpf_common.h.
    private const val LD_H_ABS = 0x28
    private const val LD_B_ABS = 0x30
    private const val LD_H_IND = 0x48
    private const val LDX_B_MSH = 0xb1
    private const val JEQ = 0x15
    private const val JSET = 0x45
    private const val RET = 0x06
    private const val SKF_AD_PROTOCOL = -0x1000 // SKF_AD_OFF + SKF_AD_PROTOCOL (0)
    private const val ETH_P_IP = 0x0800
    private const val TCP = 6
    private const val FRAGMENT_OFFSET = 0x1fff
    private const val WHOLE_PACKET = 0x40000
}
