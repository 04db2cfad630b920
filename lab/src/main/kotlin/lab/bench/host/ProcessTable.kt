package lab.bench.host

import java.io.File

/**
 * Every process on the host at one moment, as their /proc/<pid>/stat lines show them: who
 * started whom (to tell the harness's own process tree from the rest) and the CPU each has used.
 * Two tables a few seconds apart say which processes used the host's CPU meanwhile.
 */
class ProcessTable(val processes: Map<Long, Entry>) {
    /**
     * One process. [cpuTicks] is user plus system time since it started, in clock ticks; [startTicks]
     * is when it started after boot, which tells a new process that reuses a pid from the old one.
     */
    data class Entry(val pid: Long, val ppid: Long, val name: String, val cpuTicks: Long, val startTicks: Long)

    /** [root] and every process it started, and they started, down the tree. */
    fun treeOf(root: Long): Set<Long> {
        val children = processes.values.groupBy({ it.ppid }, { it.pid })
        val tree = mutableSetOf<Long>()
        val next = ArrayDeque(listOf(root))
        while (next.isNotEmpty()) {
            val pid = next.removeFirst()
            if (tree.add(pid)) next.addAll(children[pid].orEmpty())
        }
        return tree
    }

    /** The processes that started [pid], up to the first one (init); they wait on it, so they are part of the same run. */
    fun ancestorsOf(pid: Long): Set<Long> = generateSequence(processes[pid]?.ppid) { processes[it]?.ppid }
        .takeWhile { it > 0 }.take(processes.size).toSet()

    companion object {
        /** Clock ticks a second (USER_HZ), as /proc counts CPU time: 100 on Linux. */
        const val TICKS_PER_SECOND = 100

        /** The processes as /proc has them now; one that exits while they are read is left out. */
        fun read(): ProcessTable = ProcessTable(
            File("/proc").listFiles().orEmpty()
                .filter { it.name.all(Char::isDigit) }
                .mapNotNull { dir -> runCatching { parseStat(File(dir, "stat").readText()) }.getOrNull() }
                .associateBy { it.pid },
        )

        /** One /proc/<pid>/stat line (proc(5)). The name, in parentheses, may hold spaces and parentheses, so fields count from its last `)`. */
        fun parseStat(line: String): Entry {
            val fields = line.substringAfterLast(')').trim().split(' ')
            return Entry(
                pid = line.substringBefore(' ').toLong(),
                ppid = fields[1].toLong(),
                name = line.substringAfter('(').substringBeforeLast(')'),
                cpuTicks = fields[11].toLong() + fields[12].toLong(),
                startTicks = fields[19].toLong(),
            )
        }

        /** A process's arguments, from /proc/<pid>/cmdline; empty for a kernel thread, null once it is gone. */
        fun commandLine(pid: Long): List<String>? = runCatching { parseCommandLine(File("/proc/$pid/cmdline").readBytes()) }.getOrNull()

        /**
         * A command as a person recognises it, at most [SHORT_COMMAND_CHARS] long: the program's name
         * and what follows, where for `java` what follows is the `-jar` or main class and its
         * arguments, not the JVM's options and class path, which fill the first hundreds of characters.
         */
        fun shortCommand(arguments: List<String>): String {
            val program = arguments.firstOrNull()?.substringAfterLast('/') ?: return ""
            val rest = arguments.drop(1)
            val shown = if (program == "java") rest.drop(javaOptionCount(rest)) else rest
            return (listOf(program) + shown).joinToString(" ").take(SHORT_COMMAND_CHARS)
        }

        const val SHORT_COMMAND_CHARS = 100

        /** The JVM's options before `-jar` or the main class; the class path options take a value. */
        private fun javaOptionCount(arguments: List<String>): Int {
            var i = 0
            while (i < arguments.size && arguments[i] != "-jar" && arguments[i].startsWith("-")) {
                i += if (arguments[i] in JAVA_OPTIONS_WITH_VALUE) 2 else 1
            }
            return i.coerceAtMost(arguments.size)
        }

        private val JAVA_OPTIONS_WITH_VALUE = setOf("-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules")

        /** /proc/<pid>/cmdline's arguments, each ended by a NUL byte. */
        fun parseCommandLine(bytes: ByteArray): List<String> = String(bytes).split('\u0000').dropLastWhile { it.isEmpty() }
    }
}
