package lab.bench.collect

import lab.bench.host.CgroupV1
import java.io.File
import java.io.IOException

/**
 * A cgroup v1 memory group of the server's own, so the kernel memory charged to it is its
 * alone: [read] gives `kernel_tcp` (`memory.kmem.tcp.usage_in_bytes`: its TCP buffers) and
 * `kernel` (`memory.kmem.usage_in_bytes`: socket structures, thread kernel stacks, page tables;
 * cgroup v1 keeps TCP apart, so the two add up). The group is made inside the harness's own
 * memory group ([CgroupV1.makeGroup]); on a host where the harness is in the root group that is
 * `/sys/fs/cgroup/memory/loom-lab/<name>`.
 *
 * Making a group needs root and the v1 controller; a host with cgroup v2 only (Ubuntu 24.04)
 * gets [Unavailable], and the harness falls back to [HostSockstat].
 */
class MemoryCgroup private constructor(val dir: File) : KernelMemory {
    override val source = "cgroup-v1"

    override val description = "the server's own cgroup v1 memory group, ${dir.path}"

    override fun launch(command: List<String>): List<String> = CgroupV1.launchInto(dir, command)

    override fun read(): Map<String, Long> = linkedMapOf(
        KERNEL_TCP to counter("memory.kmem.tcp.usage_in_bytes"),
        KERNEL to counter("memory.kmem.usage_in_bytes"),
    )

    /** The pids in the group now. */
    fun pids(): List<Long> = CgroupV1.pids(dir)

    /** Removes the group, once the server has left it. */
    override fun close() = CgroupV1.remove(dir)

    private fun counter(name: String): Long = File(dir, name).readText().trim().toLong()

    /** No group could be made here; the message says why. */
    class Unavailable(message: String) : Exception(message)

    companion object {
        const val KERNEL_TCP = "kernel_tcp"
        const val KERNEL = "kernel"

        private val MOUNT = CgroupV1.mount("memory")

        /**
         * The highest limit cgroup v1 takes (its "unlimited"). Writing any limit to
         * `memory.kmem.tcp.limit_in_bytes` is what turns TCP accounting on for a v1 group; until
         * then `memory.kmem.tcp.usage_in_bytes` stays 0 (checked here: 500 sockets, 0 before it, their pages after).
         */
        private const val UNLIMITED = "9223372036854771712"

        /** Makes a group for the server [name]d (a name for a person; the group's own is made unique). */
        fun create(name: String): MemoryCgroup {
            if (!File(MOUNT, "memory.kmem.tcp.usage_in_bytes").isFile) {
                throw Unavailable("no cgroup v1 memory controller with TCP accounting at ${MOUNT.path}")
            }
            val dir = CgroupV1.makeGroup("memory", name)
                ?: throw Unavailable("cannot make a cgroup under ${MOUNT.path} (making one needs root)")
            try {
                File(dir, "memory.kmem.tcp.limit_in_bytes").writeText(UNLIMITED)
            } catch (e: IOException) {
                dir.delete()
                throw Unavailable("cannot turn on TCP accounting in ${dir.path}: ${e.message}")
            }
            return MemoryCgroup(dir)
        }
    }
}
