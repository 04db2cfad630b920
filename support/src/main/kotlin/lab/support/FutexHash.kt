package lab.support

import java.lang.foreign.FunctionDescriptor
import java.lang.foreign.Linker
import java.lang.foreign.ValueLayout
import java.lang.invoke.MethodHandle

/**
 * Which hash table the kernel keeps this process's waiting threads in (`prctl(PR_FUTEX_HASH)`).
 *
 * Every thread the JVM parks (an OS thread in `LockSupport.park`, a carrier with nothing to
 * run, an idle pool thread) waits on a futex, and every wake-up walks the hash bucket its
 * futex falls in. Linux 6.16 gave each process a private hash of its own, sized by the
 * host's CPUs, not by the process's threads: 16 buckets on a 2-CPU host. With the platform
 * server's 14,000 idle sockets, each holding a parked OS thread, a bucket holds about 900
 * waiters, and each wake-up anywhere in the server walks them: with the sockets only pinging, the
 * idle server spent several times the CPU it spends with the global hash, nearly all in
 * `futex_wake` (docs/under-load.md, "The platform server's idle CPU"). That is this kernel's cost on a
 * small host, not the model's, so every server asks for the global hash every kernel before
 * 6.16 gave every process ([Choice.GLOBAL]); [Choice.KERNEL] leaves the kernel's own choice,
 * to measure it.
 */
object FutexHash {
    enum class Choice(val slug: String) {
        /** The kernel's global hash (256 buckets a CPU), as before Linux 6.16. */
        GLOBAL("global"),

        /** Whatever the kernel gives the process: on Linux 6.16 and later a private hash sized by the host's CPUs. */
        KERNEL("kernel"),
    }

    /** Applies [choice] to this process and returns what it then has, as [describe] names it. */
    fun apply(choice: Choice): String {
        if (choice == Choice.GLOBAL && privateSlots() != null && prctl(SET_SLOTS, 0) != 0) {
            System.err.println("could not move this process to the kernel's global futex hash; it keeps ${describe()}")
        }
        return describe()
    }

    /** `global`, or `private-<buckets>` for a private hash of that many buckets. */
    fun describe(): String = privateSlots()?.takeIf { it > 0 }?.let { "private-$it" } ?: "global"

    /** The private hash's buckets, 0 where the process uses the global hash, null where the kernel has no private hash (before 6.16). */
    private fun privateSlots(): Int? = prctl(GET_SLOTS, 0).takeIf { it >= 0 }

    private fun prctl(op: Long, slots: Long): Int = prctlHandle?.let { it.invokeExact(PR_FUTEX_HASH, op, slots, 0L, 0L) as Int } ?: -1

    // include/uapi/linux/prctl.h
    private const val PR_FUTEX_HASH = 78
    private const val SET_SLOTS = 1L
    private const val GET_SLOTS = 2L

    // prctl(int option, ...): every argument after the first is variadic, passed as a long.
    private val prctlHandle: MethodHandle? = runCatching {
        val linker = Linker.nativeLinker()
        linker.defaultLookup().find("prctl").map { symbol ->
            linker.downcallHandle(
                symbol,
                FunctionDescriptor.of(
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG,
                ),
                Linker.Option.firstVariadicArg(1),
            )
        }.orElse(null)
    }.getOrNull()
}
