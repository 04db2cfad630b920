package lab.bench.host

import java.io.File

/**
 * What the lab's cgroup v1 groups share, whichever controller they are for (the memory group
 * that counts the server's kernel memory, the cpu group that holds it to a budget): where a
 * group of the lab's is made, how a command starts inside one, and how one is removed.
 */
object CgroupV1 {
    /** The hierarchy of [controller] (`memory`, `cpu`), as this host mounts cgroup v1. */
    fun mount(controller: String) = File("/sys/fs/cgroup/$controller")

    /**
     * A new group for the server [name]d (a name for a person; the group's own is made unique), inside the harness's own group
     * of [controller] (`<that group>/loom-lab/<name>-<pid>-<nanos>`), so the server stays under whatever limits and accounting
     * the harness runs under. Null if it cannot be made (that needs root).
     */
    fun makeGroup(controller: String, name: String): File? {
        val parent = File(File(mount(controller), ownGroup(controller)), "loom-lab")
        removeOrphans(parent)
        val dir = File(parent, "$name-${ProcessHandle.current().pid()}-${System.nanoTime()}")
        return dir.takeIf { (parent.isDirectory || parent.mkdir()) && dir.mkdir() }
    }

    /**
     * Removes the groups under [parent] that a harness no longer running made ([makeGroup] names each after its harness's pid)
     * and nothing runs in. A harness removes its groups as each server ends, but one stopped by a signal ends in Children's
     * shutdown hook, which stops the server and leaves its groups: `make test`'s SIGTERM and Ctrl-C tests left two a run, 18
     * on this host in 13 hours. A group a running harness made, or one something still runs in, stays.
     */
    fun removeOrphans(parent: File) {
        parent.listFiles { file -> file.isDirectory }.orEmpty()
            .filter { group -> harnessPid(group.name)?.let { pid -> ProcessHandle.of(pid).isEmpty } == true }
            .filter { group -> runCatching { pids(group).isEmpty() }.getOrDefault(false) }
            .forEach { group -> group.delete() }
    }

    /** The pid of the harness that made the group [name]d `<name>-<pid>-<nanos>` ([makeGroup]); null for a name not of that form. */
    fun harnessPid(name: String): Long? {
        val parts = name.split('-')
        if (parts.size < 3 || parts.last().toLongOrNull() == null) return null
        return parts[parts.size - 2].toLongOrNull()?.takeIf { it > 0 }
    }

    /**
     * [command] as it must start to run in [group] from its first instruction: a shell writes its own pid into the group and
     * then becomes the command, so the JVM's first thread is already in it, under the pid the harness started. Wrapped twice,
     * a command runs in both groups.
     */
    fun launchInto(group: File, command: List<String>): List<String> =
        listOf("/bin/sh", "-c", "echo $$ > \"$1\" && shift && exec \"$@\"", "sh", File(group, "cgroup.procs").path) + command

    /** The pids in [group] now. */
    fun pids(group: File): List<Long> = File(group, "cgroup.procs").readLines().filter { it.isNotBlank() }.map { it.trim().toLong() }

    /**
     * Removes [group]. A group can be removed once no process is in it; a process just reaped may take a moment to leave it, so
     * this tries for a second, then leaves it be and says so.
     */
    fun remove(group: File) {
        repeat(20) {
            if (group.delete() || !group.exists()) return
            Thread.sleep(50)
        }
        System.err.println("could not remove the cgroup ${group.path}; something still runs in it")
    }

    /** The harness's group of [controller], from its `/proc/self/cgroup` line (`4:memory:/path`); `/` where it has none. */
    private fun ownGroup(controller: String): String = File("/proc/self/cgroup").readLines()
        .map { it.split(':', limit = 3) }
        .firstOrNull { it.size == 3 && controller in it[1].split(',') }
        ?.get(2) ?: "/"
}
