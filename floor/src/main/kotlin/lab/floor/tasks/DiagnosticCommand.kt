package lab.floor.tasks

import java.lang.management.ManagementFactory
import javax.management.ObjectName

/**
 * The JVM's diagnostic commands (what `jcmd <pid> GC.class_histogram` runs), called in-process
 * through their MBean: no attach, no second JVM, no port.
 */
internal object DiagnosticCommand {
    private val name = ObjectName("com.sun.management:type=DiagnosticCommand")
    private val signature = arrayOf(Array<String>::class.java.name)

    /** The text [operation] (the MBean's name for a command: `gcClassHistogram`, `vmNativeMemory`) prints with [arguments]. */
    fun run(operation: String, vararg arguments: String): String =
        ManagementFactory.getPlatformMBeanServer().invoke(name, operation, arrayOf<Any>(arrayOf(*arguments)), signature) as String
}
