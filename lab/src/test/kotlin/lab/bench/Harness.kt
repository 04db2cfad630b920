package lab.bench

import kotlinx.serialization.json.Json
import lab.support.ReadyLine
import java.io.File
import java.util.concurrent.TimeUnit
import kotlin.test.fail

/**
 * The bench harness as a user starts it (`java -jar lab/target/lab.jar`), with the JDKs, k6
 * vegeta and wrk that `make test` set up, writing into a results folder of its own.
 */
class Harness(name: String) {
    val root = File(System.getProperty("lab.root"))
    val results = File(System.getProperty("lab.results"), name)
    val log = File(results, "harness.log")
    private val lenient = Json { ignoreUnknownKeys = true }

    fun start(vararg args: String): Process {
        results.deleteRecursively()
        results.mkdirs()
        return ProcessBuilder(
            "${env("LAB_HARNESS_JDK")}/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar", File(root, "lab/target/lab.jar").path,
            "--repo", root.path, "--results", results.path,
            "--server-jdk", env("LAB_SERVER_JDK"), "--k6", env("LAB_K6"), "--vegeta", env("LAB_VEGETA"),
            "--wrk", env("LAB_WRK"), *args,
        ).redirectErrorStream(true).redirectOutput(log).start()
    }

    /** [start] on a profile of the tests' own (`lab/src/test/resources/profiles/<profile>.json`), with [more] after it. */
    fun startTestProfile(profile: String, vararg more: String): Process =
        start("--profiles", File(root, "lab/src/test/resources/profiles").path, "--profile", profile, *more)

    /** Waits for [process] to exit, failing the test with the harness's log if it takes over [minutes]. */
    fun await(process: Process, minutes: Long): Int {
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroy()
            fail("the harness took over $minutes minutes; see $log:\n${log.readText().takeLast(3000)}")
        }
        return process.exitValue()
    }

    /** The run folder (the only one: each [start] begins with an empty results folder). */
    fun runDir(): File = runDirOrNull() ?: fail("no run folder in $results; see $log:\n${log.readText().takeLast(3000)}")

    private fun runDirOrNull(): File? = results.listFiles().orEmpty().singleOrNull { it.isDirectory && it.name != "latest" }

    /** Waits until k6 has reported [server]'s load a few times: the run is well under way. */
    fun awaitLoad(server: String, seconds: Long) = waitUntil("$server under load", seconds) {
        runDirOrNull()?.let { File(it, "$server/load.csv") }?.let { it.isFile && it.readLines().size > 3 } == true
    }

    fun manifest(runDir: File = runDir()): Manifest = lenient.decodeFromString(
        Manifest.serializer(),
        File(runDir, "manifest.json").readText(),
    )

    /** Polls every 100 ms until [condition] holds; fails after [seconds]. */
    fun waitUntil(what: String, seconds: Long, condition: () -> Boolean) {
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds)
        while (!condition()) {
            if (System.nanoTime() > deadline) fail("$what did not happen within $seconds s; see $log:\n${log.readText().takeLast(3000)}")
            Thread.sleep(100)
        }
    }

    /** The process id a program of the run announced in its READY line in [log], if it got that far. */
    fun readyPid(log: File): Long? = if (log.isFile) log.useLines { lines -> lines.firstNotNullOfOrNull(ReadyLine::pidIn) } else null

    /**
     * Every process of the run still alive: the stub and the servers by the pid their READY
     * lines gave, and k6 (or anything else) by the run folder on its command line.
     */
    fun leftovers(runDir: File): List<String> {
        val announced = runDir.walkTopDown().filter { it.name == "server.log" || it.name == "stub.log" }
            .mapNotNull { log ->
                readyPid(log)?.let { pid -> ProcessHandle.of(pid).filter { it.isAlive }.map { "$pid (${log.path})" }.orElse(null) }
            }
        val byCommandLine = ProcessHandle.allProcesses().filter { process ->
            process.info().commandLine().map { runDir.path in it }.orElse(false)
        }.map { "${it.pid()} ${it.info().commandLine().orElse("")}" }.toList()
        return announced.toList() + byCommandLine
    }

    private fun env(name: String): String = System.getenv(name) ?: fail("set $name; `make test` does")
}
