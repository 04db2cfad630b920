package lab.bench

import lab.bench.collect.CpuSampler
import lab.bench.collect.JfrCollector
import lab.bench.collect.MemoryCollector
import lab.bench.collect.PlateauSnapshots
import lab.bench.collect.ProcSampler
import lab.bench.collect.WireLatency
import lab.bench.host.CpuBudget
import lab.bench.load.ClosedLoopStep
import lab.bench.load.CurveSearch
import lab.bench.load.K6Load
import lab.bench.load.VegetaCurve
import lab.support.Stub
import java.util.concurrent.CompletableFuture

/** What a pass has started and seen so far: whatever happens, ServerRun.run() stops it and builds the outcome from it (PassOutcome). */
internal class PassMeasured {
    var stub: Stub.Started? = null
    var jfr: JfrCollector? = null
    var proc: ProcSampler? = null
    var cpu: CpuSampler? = null
    var memory: MemoryCollector? = null
    var snapshots: PlateauSnapshots? = null
    var k6: K6Load? = null
    var wire: WireLatency? = null
    var vegeta: VegetaCurve? = null
    var closedLoop: ClosedLoopStep? = null
    var search: CurveSearch? = null

    /** The server's CPU budget for the curve, where the profile gives one (Profile.curveServerCpuBudget). */
    var budget: CpuBudget? = null

    /** The server's READY line: the facts it announced (its futex hash, its pool's bound) go into its outcome. */
    var readyLine: String? = null

    /** Why this pass has no wire.csv, on a host that lets the harness read no packets. */
    var noWire: String? = null

    /** Wall-clock time k6's timeline started: its samples are stamped in epoch seconds. */
    var loadStartEpochMs: Long? = null

    /** Wall-clock time k6 was started: the collections its Go runtime writes to k6.log are timed from it. */
    var k6StartEpochMs: Long? = null
    var peakSockets = 0
    var peakRss = 0L
    var peakThreads = 0

    /** When the stub exited, by the pass's clock, once it has: read while the load runs. */
    var stubExit: CompletableFuture<Double>? = null

    /** How the pass lost its stub, if it did: the server then answers /dashboard with 502, and the pass goes on. */
    var stubLost: String? = null
}
