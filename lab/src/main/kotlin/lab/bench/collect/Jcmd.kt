package lab.bench.collect

import com.sun.tools.attach.VirtualMachine
import java.io.ByteArrayOutputStream
import java.io.InputStream
import java.lang.reflect.InvocationTargetException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutionException
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * The JDK's diagnostic commands run on another JVM through its local attach mechanism, as
 * `jcmd <pid> <command>` does, but from this JVM: no network port is opened, on either side,
 * and no jcmd JVM is started for each command. That start was a third of a second a command,
 * a second of every memory snapshot, which must end within its socket step.
 *
 * The attach API's public face has no diagnostic command; its HotSpot implementation's
 * `executeJCmd` does, in a package the lab jar's manifest exports to it (`Add-Exports:
 * jdk.attach/sun.tools.attach`, lab/pom.xml). The harness's JDK 25 attaches to a JDK 21 or 25
 * JVM alike.
 */
object Jcmd {
    /** A thread a command, so a JVM that never answers costs a daemon thread, not the caller's. */
    private val attaching = Executors.newCachedThreadPool { Thread(it, "jcmd").apply { isDaemon = true } }

    /**
     * What [command] (for example `GC.class_histogram`) prints on the JVM [pid]; throws if the
     * command fails or takes over [timeoutSeconds] (a full GC of a large heap takes seconds, not minutes).
     */
    fun run(pid: Long, vararg command: String, timeoutSeconds: Long = 120): String {
        val line = command.joinToString(" ")
        val reply = CompletableFuture.supplyAsync({ execute(pid, line) }, attaching)
        return try {
            reply.get(timeoutSeconds, TimeUnit.SECONDS)
        } catch (e: TimeoutException) {
            reply.cancel(true)
            throw IllegalStateException("jcmd $pid $line took over $timeoutSeconds s", e)
        } catch (e: ExecutionException) {
            throw IllegalStateException("jcmd $pid $line failed: ${e.cause?.message}", e.cause)
        }
    }

    /**
     * All of [stream], read a buffer at a time from the buffer's start: the attach stream's read
     * into the middle of an array fails in JDK 25 ("Array region 16383..16389 out of bounds for
     * length 16384", from readAllBytes on a histogram's reply).
     */
    private fun readFromStart(stream: InputStream): String {
        val text = ByteArrayOutputStream()
        val buffer = ByteArray(READ_BYTES)
        while (true) {
            val n = stream.read(buffer, 0, buffer.size)
            if (n < 0) return text.toString(Charsets.UTF_8)
            text.write(buffer, 0, n)
        }
    }

    private const val READ_BYTES = 8192

    private fun execute(pid: Long, line: String): String {
        val vm = VirtualMachine.attach(pid.toString())
        try {
            val stream = try {
                vm.javaClass.getMethod("executeJCmd", String::class.java).invoke(vm, line) as InputStream
            } catch (e: IllegalAccessException) {
                throw IllegalStateException(
                    "this JVM cannot reach the attach API's executeJCmd: run the harness as `java -jar lab/target/lab.jar`, " +
                        "or add --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED",
                    e,
                )
            } catch (e: InvocationTargetException) {
                throw e.cause ?: e
            }
            return stream.use(::readFromStart)
        } finally {
            vm.detach()
        }
    }
}
