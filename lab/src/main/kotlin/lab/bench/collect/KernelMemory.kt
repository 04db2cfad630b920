package lab.bench.collect

/**
 * The kernel's memory on a server's behalf (socket buffers, socket structures, thread kernel
 * stacks), which neither the JVM nor the RSS shows. Where the cgroup v1 memory controller lets
 * the harness make a group ([MemoryCgroup]), the server runs in a group of its own and this is
 * its memory alone; elsewhere it is the host's TCP memory ([HostSockstat]), both ends of every
 * loopback socket included. [source] says which, for the manifest's `kernelMemorySource`.
 *
 * ```
 * KernelMemory.forServer("jetty-virtual").use { kernel ->
 *     val process = Children.start(kernel.launch(command), log)
 *     ...
 *     kernel.read() // {"kernel_tcp": ..., "kernel": ...}
 * }                 // after the process has exited
 * ```
 */
interface KernelMemory : AutoCloseable {
    /** `cgroup-v1` or `sockstat-host`. */
    val source: String

    /** One sentence for a person: where the figures come from, and why there when it is the fallback. */
    val description: String

    /** [command] as it must be started for [read] to count its memory: in the server's group from its first instruction. */
    fun launch(command: List<String>): List<String>

    /** The memory.csv components this source gives now, in bytes. */
    fun read(): Map<String, Long>

    /** Lets go of what was made for the server; call it once the server has exited. */
    override fun close() {}

    companion object {
        /** A group of its own for the server [name]d, or the host-wide figure where no group can be made. */
        fun forServer(name: String): KernelMemory = try {
            MemoryCgroup.create(name)
        } catch (e: MemoryCgroup.Unavailable) {
            HostSockstat(because = e.message ?: "no cgroup")
        }
    }
}
