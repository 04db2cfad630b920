package lab.sweep

import lab.bench.collect.KernelMemory
import lab.bench.collect.ProcStat
import lab.bench.collect.ThreadFamilies
import lab.bench.load.WrkFailed
import lab.support.ChildExited
import lab.support.Children
import lab.support.ProcView
import lab.support.ServerEntry
import lab.support.Stub
import lab.verify.ContractCheck
import java.io.File
import java.net.URI
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicLong

/**
 * One server on one workload in one pass of the sweep: a fresh stub answering after the sweep's
 * delay, a fresh JVM of the server with the bench's flags on the server's CPUs, a memory snapshot
 * at rest, a warm-up of the workload's code, then each concurrency in turn, rising: a warm-up at
 * that concurrency (during which memory is taken apart with the requests in flight), then the
 * measured window. Everything is stopped at the end, whatever happened; a server that fails ends
 * its pass and the reason is returned.
 *
 * A workload gets a JVM of its own because a server carries what one step left into the next:
 * the platform server kept the 6,000 threads of `/delay` at 6,000 in flight into its `/dashboard`
 * steps, and served 15 dashboards a second at 1,000 in flight with 3,500 threads
 * (docs/JOURNAL.md, stopped there). Within a workload the steps rise, so what a
 * step inherits is what it needs anyway.
 */
class SweepPass(
    private val setup: SweepSetup,
    private val server: ServerEntry,
    private val workload: SweepWorkload,
    private val pass: Int,
    private val dir: File,
    private val csv: SweepCsv,
    private val progress: (String) -> Unit,
) {
    /** Runs the pass; null when every step was measured, else why it ended early. */
    fun run(): String? {
        dir.mkdirs()
        val stub = Stub.start(setup.java.path, setup.repo, setup.delayMs, dir) ?: return "the stub did not start; see stub.log"
        val kernel = KernelMemory.forServer("${dir.parentFile.name}-${dir.name}")
        val process = Children.start(kernel.launch(serverCommand(stub.url)), File(dir, "server.log"), directory = dir)
        return try {
            val url = Children.awaitReady(process, File(dir, "server.log"), READY_TIMEOUT_S)
                ?: return "did not print its READY line within $READY_TIMEOUT_S s"
            ContractCheck.firstBreach(URI(url))?.let { return "broke the contract before any load: $it" }
            val memory = InFlightMemory(process.pid(), url, kernel)
            csv.append(pass, server.name, workload.slug, 0, memory.snapshot())
            // The workload's code before any step, in the server and the stub alike, until the JIT has compiled most of it:
            // otherwise the first steps pay for the compiling, which on Ktor's /dashboard took most of a minute (docs/JOURNAL.md,
            // "Figures that were in the harness's comments").
            warmUp(url + workload.path(setup.delayMs), process.pid())
            for (concurrency in setup.concurrencies.filter { it <= setup.highestConcurrency(workload) }) {
                if (!process.isAlive) return "exited with code ${process.exitValue()} before C=$concurrency"
                val step = step(url, concurrency, process.pid(), stub, memory)
                csv.append(step)
                progress(describe(step))
            }
            null
        } catch (e: ChildExited) {
            e.message
        } catch (e: WrkFailed) {
            e.message
        } catch (e: Exception) {
            if (!process.isAlive) "exited with code ${process.exitValue()}: ${e.message}" else "${e.javaClass.simpleName}: ${e.message}"
        } finally {
            Children.stop(process, graceSeconds = 10)
            Children.stop(stub.process, graceSeconds = 5)
            runCatching { kernel.close() }
        }
    }

    /**
     * Holds the first concurrency for at least the declared warm-up, then until the JIT compilers used less than
     * [JIT_SETTLED_SHARE] of a CPU over the last [JIT_WINDOW_S] seconds, or [SweepSetup.codeWarmupMaxSeconds] passed.
     * Says how long it took.
     */
    private fun warmUp(target: String, serverPid: Long) {
        val concurrency = setup.concurrencies.first()
        val log = File(dir, "wrk-warmup.log")
        val maxSeconds = setup.codeWarmupMaxSeconds
        val hold = setup.wrk.hold(target, concurrency, maxSeconds, setup.timeoutSeconds, setup.window, setup.loadCpuList, log)
        val proc = ProcView(serverPid)
        val startNs = System.nanoTime()
        var settled = false
        try {
            Thread.sleep(minOf(maxOf(setup.warmupSeconds, JIT_WINDOW_S), maxSeconds) * 1000L)
            // The compilers' CPU a second apart, over the last JIT_WINDOW_S seconds.
            val samplesMs = ArrayDeque<Long>()
            while (hold.isAlive && !settled) {
                samplesMs.addLast(proc.jitCpuMs())
                if (samplesMs.size > JIT_WINDOW_S + 1) samplesMs.removeFirst()
                settled =
                    samplesMs.size == JIT_WINDOW_S + 1 && samplesMs.last() - samplesMs.first() < JIT_SETTLED_SHARE * 1000 * JIT_WINDOW_S
                if (!settled) Thread.sleep(1_000)
            }
        } finally {
            Children.stop(hold, graceSeconds = 5)
        }
        val seconds = (System.nanoTime() - startNs) / 1e9
        progress(
            "%s pass %d %s: warmed up for %.0f s (%s)".format(
                java.util.Locale.ROOT,
                server.name,
                pass,
                workload.slug,
                seconds,
                if (settled) "the JIT settled" else "its cap reached before the JIT settled",
            ),
        )
    }

    private fun step(
        url: String,
        concurrency: Int,
        serverPid: Long,
        stubStarted: Stub.Started,
        memory: InFlightMemory,
    ): SweepCsv.Step {
        val target = url + workload.path(setup.delayMs)
        val name = "${workload.slug}-$concurrency"
        // The warm-up holds the step's concurrency, so the JIT, the pools and the connections are the step's when it is measured;
        // the server's memory is taken apart in it with the requests in flight, once they have all arrived (after two waits),
        // and it lasts as long as the snapshot does, at least the declared warm-up.
        val warmupStartNs = System.nanoTime()
        val holdSeconds = setup.warmupSeconds + SNAPSHOT_BUDGET_S
        val hold = setup.wrk.hold(
            target,
            concurrency,
            holdSeconds,
            setup.timeoutSeconds,
            setup.window,
            setup.loadCpuList,
            File(dir, "wrk-$name-warmup.log"),
        )
        try {
            Thread.sleep(setup.snapshotAfterMs)
            runCatching { memory.snapshot() }
                .onSuccess { csv.append(pass, server.name, workload.slug, concurrency, it) }
                .onFailure { progress("${server.name} $name: no memory snapshot: ${it.message}") }
            val leftMs = setup.warmupSeconds * 1000L - (System.nanoTime() - warmupStartNs) / 1_000_000
            if (leftMs > 0) Thread.sleep(leftMs)
            if (!hold.isAlive) progress("${server.name} $name: the warm-up's wrk ended before its snapshot did (exit ${hold.exitValue()})")
        } finally {
            Children.stop(hold, graceSeconds = 5)
        }

        // JFR's profile and the stub's counts are started and read through the attach mechanism and over HTTP, which the
        // server, the stub and the harness pay for: outside the CPU windows, before and after.
        val profiling = setup.profile?.let { profile ->
            runCatching {
                profile.start(serverPid)
            }.onFailure { progress("${this.server.name} $name: no profile: ${it.message}") }.isSuccess
        } ?: false
        val callsBefore = StubCalls.read(stubStarted.url)
        val server = ProcView(serverPid)
        val stub = ProcView(stubStarted.process.pid())
        val threads = ThreadWatch(server).also { it.start() }
        val cpuBefore = ProcStat.read()
        val serverMsBefore = server.cpuMs() ?: 0
        val threadsBefore = server.threadsCpu()
        val jitMsBefore = server.jitCpuMs()
        val stubMsBefore = stub.cpuMs()
        val inFlight = CompletableFuture.supplyAsync {
            Thread.sleep(setup.seconds * 500L)
            runCatching { memory.inFlight() }.getOrNull()
        }
        val result = try {
            setup.wrk.run(
                target,
                concurrency,
                setup.seconds,
                setup.timeoutSeconds,
                setup.window,
                setup.loadCpuList,
                File(dir, "wrk-$name.log"),
            )
        } finally {
            threads.stop()
        }
        val cpuAfter = ProcStat.read()
        val threadsAfter = server.threadsCpu()
        val serverMsAfter = server.cpuMs() ?: serverMsBefore
        val jitMsAfter = server.jitCpuMs()
        val stubMsAfter = stub.cpuMs()
        val calls = callsBefore?.let { before -> StubCalls.read(stubStarted.url)?.minus(before) }
        if (profiling) {
            runCatching { setup.profile?.stop(serverPid, dir, "profile-$name") }
                .onFailure { progress("${this.server.name} $name: the profile was not written: ${it.message}") }
        }
        return SweepCsv.Step(
            pass = pass,
            server = this.server.name,
            workload = workload,
            delayMs = setup.delayMs,
            concurrency = concurrency,
            wrk = result,
            serverCpuSeconds = (serverMsAfter - serverMsBefore) / 1000.0,
            serverJitCpuSeconds = (jitMsAfter - jitMsBefore) / 1000.0,
            serverCpuSecondsByThreads = ThreadFamilies.cpuSecondsBetween(threadsBefore, threadsAfter),
            stubCpuSeconds = stubMsBefore?.let { before -> stubMsAfter?.let { (it - before) / 1000.0 } },
            stubCalls = calls,
            serverCpusBusy = setup.cpuSplit?.let { cpuAfter.busyShare(cpuBefore, it.serverCpus) },
            loadCpusBusy = setup.cpuSplit?.let { cpuAfter.busyShare(cpuBefore, it.loadCpus) },
            threadsPeak = threads.peak,
            threadsMean = threads.mean,
            rssBytesPeak = threads.rssPeak,
            serverInFlight = inFlight.join(),
        )
    }

    private fun describe(step: SweepCsv.Step): String {
        val seconds = step.wrk.durationUs / 1e6 - step.wrk.windowFromMs / 1e3
        val statuses = step.wrk.statuses.entries.sortedBy { it.key }.joinToString(" ") { "${it.key}:${it.value}" }
        return (
            "%s pass %d %s C=%,d: %,.0f/s (C/D %,.0f/s), p50 %,.0f ms p99 %,.0f ms, %s, timeouts %d, " +
                "server CPU %.0f%%, load CPU %.0f%%, %,d threads"
            )
            .format(
                java.util.Locale.ROOT, step.server, step.pass, step.workload.slug, step.concurrency, step.wrk.answeredInWindow / seconds,
                step.concurrency * 1000.0 / step.delayMs, step.wrk.latencyUs.p50 / 1e3, step.wrk.latencyUs.p99 / 1e3, statuses,
                step.wrk.errors.timeout, 100 * (step.serverCpusBusy ?: Double.NaN), 100 * (step.loadCpusBusy ?: Double.NaN),
                step.threadsPeak,
            )
    }

    private fun serverCommand(stubUrl: String): List<String> =
        setup.cpuSplit?.serverCommandPrefix().orEmpty() + listOf(setup.java.path) + setup.serverFlags +
            server.jarCommand(
                setup.repo,
                listOf("--host", "127.0.0.1", "--port", "0", "--downstream-url", stubUrl) + server.poolArguments(setup.poolThreads),
            )

    /** The server's threads and RSS every [PERIOD_MS] through a measured window: their peak and mean. */
    private class ThreadWatch(private val server: ProcView) {
        private val samples = AtomicInteger()
        private val total = AtomicLong()
        private val peakThreads = AtomicInteger()
        private val peakRss = AtomicLong()

        @Volatile private var running = true
        private val thread = Thread({
            while (running) {
                server.memory()?.let { memory ->
                    samples.incrementAndGet()
                    total.addAndGet(memory.threads.toLong())
                    peakThreads.accumulateAndGet(memory.threads, ::maxOf)
                    peakRss.accumulateAndGet(memory.rssBytes, ::maxOf)
                }
                Thread.sleep(PERIOD_MS)
            }
        }, "sweep-thread-watch").apply { isDaemon = true }

        fun start() = thread.start()

        fun stop() {
            running = false
            thread.join()
        }

        val peak: Int get() = peakThreads.get()
        val rssPeak: Long get() = peakRss.get()
        val mean: Double get() = if (samples.get() == 0) 0.0 else total.get().toDouble() / samples.get()

        companion object {
            const val PERIOD_MS = 250L
        }
    }

    companion object {
        const val READY_TIMEOUT_S = 60L

        /** How long a warm-up may go on for its memory snapshot, past its declared length (a snapshot takes 2-4 s here). */
        const val SNAPSHOT_BUDGET_S = 60

        /** The JIT counts as settled under a twentieth of a CPU: Ktor's /dashboard got there after 90 s at 100 in flight. */
        const val JIT_SETTLED_SHARE = 0.05
        const val JIT_WINDOW_S = 5
    }
}
