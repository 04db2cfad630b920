package lab.bench.host

import kotlinx.serialization.Serializable
import lab.bench.load.K6Plan
import lab.bench.load.LoadGeneratorLost
import lab.bench.load.LoadGenerators
import lab.bench.load.Profile
import lab.handlers.DownstreamPaths

/**
 * Checks a profile against the host's limits before anything starts, and scales or refuses it.
 *
 * Each idle socket costs one file descriptor in the server and one in k6, and on the platform
 * server one thread, which is one pid and about two memory maps. The request load's connections
 * cost the server a descriptor each too ([requestConnections]), beside the sockets. A profile that can shrink
 * ([scalable]) is cut to what fits; one that states a published methodology (vps) is refused,
 * with the command that lifts each limit, because a smaller run would not be that methodology.
 */
object Preflight {
    /** File descriptors a process needs besides its sockets and the request load's connections: jars, JFR's chunks, logs. */
    const val FD_HEADROOM = 500

    /**
     * The server's connections for the request load at its peak, beside the idle sockets: every k6 VU of each endpoint's
     * scenario (a VU keeps its connection to the end of the run, idle or not), and where vegeta offers the curve, its pool
     * ([Profile.curveConnections]), which it holds from the load's start to the end. Without this, the curve's connections
     * took the server to its 20,000 open files here, and it stopped accepting mid-step in every pass
     * (docs/JOURNAL.md).
     */
    fun requestConnections(profile: Profile): Int {
        val offered = profile.timeline.filter { it.endpoint != null }
        val k6 = offered.filter { it.generator == Profile.K6 }.groupBy { it.endpoint }.values
            .sumOf { phases -> K6Plan.vusFor(phases.maxOf { it.ratePerSecond }) }
        val vegeta = if (offered.any { it.generator == Profile.VEGETA }) profile.curveConnections else 0
        return k6 + vegeta
    }

    /**
     * Threads a server that blocks may need at the run's peak besides one for each idle socket: for each connection of the request
     * load ([requestConnections]), one for its request and one for each downstream call that request makes at once (`/dashboard`'s).
     */
    fun requestThreads(profile: Profile): Int = threadsFor(requestConnections(profile))

    /** Threads a server that blocks holds for [requests] in flight: one each, and one for each downstream call it makes at once. */
    fun threadsFor(requests: Int): Int = requests * (1 + DownstreamPaths.DASHBOARD_CALLS_AT_ONCE)

    /**
     * The most threads a bounded pool may start in a run of [idleSockets] (the server's `--threads`, [Decision.poolThreads]): all a
     * server that blocks may need at once, and [THREAD_HEADROOM]. So the limit a run finds is the model's or the host's, which [check]
     * holds to these threads, never the pool's setting.
     */
    fun poolThreads(profile: Profile, idleSockets: Int): Int = idleSockets + requestThreads(profile) + THREAD_HEADROOM

    /** Threads, pids and maps the platform server needs besides those of its sockets and its requests: the JVM's own, and spare. */
    const val THREAD_HEADROOM = 1_000

    /** The one command that lifts every limit below, from the declared list in `infra/host-limits.conf`. */
    const val TUNE = "or lift them all at once: sudo infra/tune-host.sh (its --check shows where this host stands)"

    /** Sockets per loopback source address, under the ephemeral port range with room to spare. */
    fun socketsPerSourceAddress(limits: HostLimits): Int = limits.localPorts * 9 / 10

    @Serializable
    data class Decision(
        val idleSockets: Int,
        val requestedSockets: Int,
        /** How many loopback source addresses k6 spreads its sockets over (k6 --local-ips). */
        val sourceAddresses: Int,
        val notes: List<String>,
        /** The most threads a bounded pool may start ([poolThreads]): each server with one is given it as `--threads`. */
        val poolThreads: Int,
    )

    /**
     * Returns what the run may do, or throws [PreflightRefusal] naming each limit and its fix.
     * With [loadHere] false, k6 runs on load generators ([loadGeneratorShortfalls] checks those), so this
     * host's ephemeral ports and backlog advice do not apply.
     */
    fun check(profile: Profile, limits: HostLimits, scalable: Boolean, loadHere: Boolean = true): Decision {
        if (profile.curveServerCpuBudget > 0) CpuBudget.check(profile.curveServerCpuBudget)
        val wanted = profile.idleSockets
        val otherFiles = requestConnections(profile) + FD_HEADROOM
        val otherThreads = requestThreads(profile) + THREAD_HEADROOM
        val fitting = listOf(
            limits.openFilesHard - otherFiles,
            limits.pidMax - otherThreads,
            limits.threadsMax - otherThreads,
            (limits.maxMapCount - otherThreads * 2) / 2,
        ).min().coerceAtLeast(0).coerceAtMost(wanted.toLong()).toInt()

        val fixes = buildList {
            if (limits.openFilesHard < wanted + otherFiles) {
                add(
                    "open files per process: hard limit ${limits.openFilesHard}, needs ${wanted + otherFiles} " +
                        "($wanted idle sockets, ${otherFiles - FD_HEADROOM} connections of the request load at its peak, " +
                        "$FD_HEADROOM other files; " +
                        "raise it: ulimit -Hn ${(wanted + otherFiles) * 2}, or LimitNOFILE in systemd)",
                )
            }
            val threads = wanted + otherThreads
            if (limits.pidMax < threads) {
                add(
                    "kernel.pid_max is ${limits.pidMax}, the platform server needs $threads threads (sudo sysctl -w kernel.pid_max=4194304)",
                )
            }
            if (limits.threadsMax < threads) {
                add("kernel.threads-max is ${limits.threadsMax}, needs $threads (sudo sysctl -w kernel.threads-max=${threads * 4})")
            }
            if (limits.maxMapCount < threads * 2L) {
                add(
                    "vm.max_map_count is ${limits.maxMapCount}, the platform server needs about ${threads * 2} maps " +
                        "(sudo sysctl -w vm.max_map_count=${maxOf(262_144, threads * 4)})",
                )
            }
        }
        if (fixes.isNotEmpty() && !scalable) throw PreflightRefusal(fixes + TUNE)

        val notes = fixes.map { "scaled down for: $it" }.toMutableList()
        val sourceAddresses = if (loadHere) (fitting + socketsPerSourceAddress(limits) - 1) / socketsPerSourceAddress(limits) else 1
        if (sourceAddresses >
            1
        ) {
            notes += "$fitting sockets exceed one address's ports: k6 spreads them over 127.0.0.1-127.0.0.$sourceAddresses"
        }
        if (limits.somaxconn <
            1024
        ) {
            notes +=
                "net.core.somaxconn is ${limits.somaxconn}; bursts of new sockets may be refused (sudo sysctl -w net.core.somaxconn=65535)"
        }
        if (fitting < wanted) notes.add(0, "idle sockets scaled from $wanted to $fitting to fit this host")
        return Decision(fitting, wanted, sourceAddresses.coerceAtLeast(1), notes, poolThreads(profile, fitting))
    }
}

/**
 * What a load generator needs for its [sockets] (its segment's share): a descriptor each, and
 * as many ephemeral ports, as all go to the one server address. Empty when it has them.
 */
fun Preflight.loadGeneratorShortfalls(host: String, limits: HostLimits, sockets: Int): List<String> = buildList {
    if (limits.openFilesHard < sockets + Preflight.FD_HEADROOM) {
        add(
            "load generator $host: hard limit on open files ${limits.openFilesHard}, its $sockets sockets need ${sockets + Preflight.FD_HEADROOM}",
        )
    }
    if (limits.localPorts * 9L / 10 < sockets) {
        add(
            "load generator $host: ${limits.localPorts} ephemeral ports (net.ipv4.ip_local_port_range) for $sockets sockets to one address",
        )
    }
}

/** Each load generator must answer and hold its segment's share of the [sockets]; a refusal names every shortfall. */
fun Preflight.checkLoadGenerators(generators: LoadGenerators, sockets: Int) {
    val shortfalls = generators.hosts.flatMapIndexed { i, host ->
        val share = sockets / generators.hosts.size + if (i < sockets % generators.hosts.size) 1 else 0
        val limits = try {
            HostLimits.parseRemote(generators.run(host, HostLimits.REMOTE_COMMAND))
        } catch (e: LoadGeneratorLost) {
            throw PreflightRefusal(listOfNotNull(e.message))
        }
        loadGeneratorShortfalls(host.toString(), limits, share)
    }
    if (shortfalls.isNotEmpty()) throw PreflightRefusal(shortfalls + Preflight.TUNE)
}

/** The host cannot run the profile as declared; each reason names a limit and the command that lifts it. */
class PreflightRefusal(val reasons: List<String>) : Exception(
    "this host cannot run the profile:\n" + reasons.joinToString("\n") {
        "  - $it"
    },
)
