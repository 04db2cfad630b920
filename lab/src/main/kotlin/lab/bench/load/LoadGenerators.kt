package lab.bench.load

import kotlinx.serialization.Serializable
import lab.experiment.BadInput
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * The hosts k6 runs on when it does not run beside the servers (`make bench-vps LOADGEN=...`),
 * as the harness on the server host reaches them: over SSH with the run's own key, which
 * `infra/bench-vps.sh` made for this run, allowed from the server host only, and removes
 * when the run ends. Each host runs one execution segment of the profile.
 */
data class LoadGenerators(
    val hosts: List<SshHost>,
    /** The run's private key: the only credential the server host holds, and only for the run. */
    val key: File,
    /** The pinned k6 on every load generator. */
    val k6: String,
    /** Where each segment works on its host; removed after its samples are fetched. */
    val workDir: String,
    /** Accepted on first use and kept with the run's key, so no host key of the user's is touched. */
    val knownHosts: File,
) {
    /** The segment bounds k6 wants: `0,1/3,2/3,1` for three hosts (k6 reduces the fractions itself). */
    val segmentSequence: String get() = (0..hosts.size).joinToString(",") { bound(it) }

    fun segment(index: Int): String = "${bound(index)}:${bound(index + 1)}"

    private fun bound(i: Int): String = when (i) {
        0 -> "0"
        hosts.size -> "1"
        else -> "$i/${hosts.size}"
    }

    /** The `ssh` command line to [host] running [remoteCommand]; [extra] goes before the destination. */
    fun ssh(host: SshHost, remoteCommand: String, extra: List<String> = emptyList()): List<String> =
        sshOptions(host) + extra + listOf(host.destination, remoteCommand)

    /**
     * The `ssh` command line that forwards the socket file [localSocket] to [remotePort] on
     * [host]'s loopback, and runs nothing there: it exits if it cannot make the socket.
     */
    fun forward(host: SshHost, localSocket: String, remotePort: Int): List<String> = sshOptions(host) + listOf(
        "-N",
        "-o",
        "ExitOnForwardFailure=yes",
        "-o",
        "StreamLocalBindMask=0177",
        "-L",
        "$localSocket:127.0.0.1:$remotePort",
        host.destination,
    )

    private fun sshOptions(host: SshHost): List<String> = listOf(
        "ssh", "-i", key.path, "-p", host.port.toString(),
        "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
        "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=${knownHosts.path}",
        // A load generator that vanishes is noticed within 15 s, not at TCP's timeout.
        "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-o", "ConnectTimeout=10",
    )

    /** Runs [remoteCommand] on [host] to its end; its output, or a [LoadGeneratorLost] naming the host. */
    fun run(host: SshHost, remoteCommand: String, input: File? = null, timeoutSeconds: Long = 60): String {
        val output = File.createTempFile("loadgen-", ".out")
        try {
            complete(host, remoteCommand, input, output, withErrors = true, timeoutSeconds) { output.readText().trim().takeLast(300) }
            return output.readText()
        } finally {
            output.delete()
        }
    }

    /** Copies [remotePath] from [host] into [local], byte for byte. */
    fun fetch(host: SshHost, remotePath: String, local: File, timeoutSeconds: Long = 600) =
        complete(host, "cat ${shellQuote(remotePath)}", input = null, local, withErrors = false, timeoutSeconds) {
            "could not fetch $remotePath"
        }

    /**
     * Runs [remoteCommand] with its output ([withErrors]: and ssh's errors) into [output], waiting at
     * most [timeoutSeconds] even for a host that stops answering; [failure] says what went wrong
     * when it exits non-zero.
     */
    private fun complete(
        host: SshHost,
        remoteCommand: String,
        input: File?,
        output: File,
        withErrors: Boolean,
        timeoutSeconds: Long,
        failure: () -> String,
    ) {
        val builder = ProcessBuilder(ssh(host, remoteCommand)).redirectInput(ProcessBuilder.Redirect.from(input ?: File("/dev/null")))
        if (withErrors) builder.redirectErrorStream(true) else builder.redirectError(ProcessBuilder.Redirect.DISCARD)
        val process = builder.redirectOutput(output).start()
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            throw LoadGeneratorLost("load generator ${host.destination}: `$remoteCommand` took over $timeoutSeconds s")
        }
        if (process.exitValue() != 0) {
            throw LoadGeneratorLost(
                "load generator ${host.destination}: `$remoteCommand` failed (exit ${process.exitValue()}): ${failure()}",
            )
        }
    }

    /** What the manifest records: which host ran which segment. */
    fun describe(): List<Segment> = hosts.mapIndexed { i, host -> Segment(host.destination, segment(i)) }

    @Serializable
    data class Segment(val host: String, val executionSegment: String)

    companion object {
        /** [text] as one word of a remote POSIX shell's command line. */
        fun shellQuote(text: String) = "'" + text.replace("'", "'\\''") + "'"
    }
}

/** `user@host` or `user@host:port`, as the harness on the server host reaches a load generator. */
data class SshHost(val user: String, val host: String, val port: Int = 22) {
    val destination: String get() = "$user@$host"

    override fun toString() = if (port == 22) destination else "$destination:$port"

    companion object {
        private val FORM = Regex("""([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+)(?::(\d{1,5}))?""")

        fun parse(text: String): SshHost {
            val match = FORM.matchEntire(text.trim())
                ?: throw BadInput("load generator '$text' is not user@host or user@host:port")
            val port = match.groupValues[3].takeIf { it.isNotEmpty() }?.toInt() ?: 22
            if (port !in 1..65535) throw BadInput("load generator '$text': port $port is outside 1-65535")
            return SshHost(match.groupValues[1], match.groupValues[2], port)
        }
    }
}

/** A load generator stopped answering or its k6 died: the rest of the run would not be the profile's load. */
class LoadGeneratorLost(message: String) : Exception(message)
