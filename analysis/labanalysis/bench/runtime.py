"""Threads, CPU and GC, from each server's JFR series and /proc samples."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..folder.bench_manifest import BenchManifest, collector_label
from ..folder.declared import facts
from ..folder.run import Run


def gc_table(run: Run) -> pd.DataFrame:
    """One row per server run: GC pauses (count, total, longest, ms) and ZGC allocation stalls (count, total ms, how many in the steady /json phase).

    A ZGC pause is short by design; an allocation stall is a thread stopped because the heap
    filled faster than ZGC freed it, which is the GC cost a request actually waits for. Stalls
    overlap (many threads stall at once), so their total can exceed the run's length.
    """
    rows = []
    for server in run.servers:
        jfr = server.jfr
        pauses = jfr.loc[jfr["metric"] == "gc_pause_ms", "value"]
        stalls = jfr.loc[jfr["metric"] == "allocation_stall_ms", "value"]
        rows.append(
            {
                "run": server.name,
                "GC pauses": len(pauses),
                "total pause (ms)": pauses.sum(),
                "longest pause (ms)": pauses.max() if len(pauses) else 0.0,
                "allocation stalls": len(stalls),
                "stalled (ms)": stalls.sum(),
                "stalls in steady /json": int((jfr.loc[stalls.index, "phase"] == "json").sum()),
            }
        )
    return pd.DataFrame(rows)


def jvm_cpu(server) -> pd.DataFrame:
    """The JVM's CPU over time, user plus system, as a share of all the host's cores: time_s, phase, cpu."""
    jfr = server.jfr
    parts = jfr[jfr["metric"].isin(["cpu_jvm_user", "cpu_jvm_system"])]
    summed = parts.groupby(["time_s", "phase"])["value"].sum().reset_index()
    return pd.DataFrame({"time_s": summed["time_s"], "phase": summed["phase"], "cpu": summed["value"]})


def peak_threads(server) -> float:
    """The most OS threads /proc counted in the server's process at any sample; NaN without samples."""
    threads = server.proc["threads"]
    return float(threads.max()) if len(threads) else math.nan


def threads_and_cpu(run: Run) -> pd.DataFrame:
    """One row per server run: peak and median OS threads (/proc), and median and peak JVM CPU (JFR, share of all cores)."""
    rows = []
    for server in run.servers:
        threads = server.proc["threads"]
        cpu = jvm_cpu(server)["cpu"]
        rows.append(
            {
                "run": server.name,
                "peak threads": peak_threads(server),
                "median threads": threads.median() if len(threads) else float("nan"),
                "median JVM CPU (%)": 100 * cpu.median() if len(cpu) else float("nan"),
                "peak JVM CPU (%)": 100 * cpu.max() if len(cpu) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def run_facts(run: Run) -> dict[str, str]:
    """The manifest, summarised for a reader: host, JDK, flags, profile, preflight and the host limits it read."""
    m = run.manifest
    header, preflight = m.provenance, m.preflight
    host, jdk = header.host, header.jdk
    return {
        "status": header.status,
        "command": header.command,
        "started, finished (UTC)": f"{header.started_at[:19]}, {(header.finished_at or 'not finished')[:19]}",
        "host": f"{host.hostname}: {host.cpus} CPUs ({host.cpu_model}), {host.memory_bytes / (1 << 30):.1f} GiB, kernel {host.kernel}",
        "server JDK": f"{jdk.version} ({jdk.home}); the harness ran on {m.harness_jdk}",
        "garbage collector (every server)": collector_label(run.collector),
        "JVM flags (every server)": " ".join(m.jvm_flags),
        "what the lab changed in each engine": engine_changes(m.engines),
        "k6": m.k6_version,
        "load generation": load_generation(m),
        "git commit": header.commit(),
        "profile": f"{m.profile_name}: {m.profile.description}",
        "/json rate": f"{m.json_rate} req/s" + (f": {run.json_rate_choice}" if run.json_rate_choice else ""),
        "passes, in the order they ran": pass_order(run),
        "CPU split": cpu_split(run),
        "kernel memory (memory.csv)": KERNEL_SOURCES.get(run.kernel_memory_source, run.kernel_memory_source or "not in this run"),
        "idle sockets": f"{preflight.idle_sockets} (the profile asked for {preflight.requested_sockets})",
        "preflight notes": "; ".join(preflight.notes) or "none",
        **({"stopped because": m.reason} if m.reason else {}),
        "host limits read by the preflight": ", ".join(f"{k} {v:,}" for k, v in facts(run.limits).items()),
    }


def engine_changes(engines: Mapping[str, Any]) -> str:
    """What the lab changed in each engine of the run, as servers.json declared it when the run started (the manifest's `engines`)."""
    if not engines:
        return "not recorded: the run was made before its manifest recorded them (2026-11-29)"

    def alternatives(engine: dict) -> str:
        found = engine.get("alternatives") or []
        return "".join(
            f"; could run {'instead of ' + a['insteadOf'] if a.get('insteadOf') else 'also'}: {a['name']} ({a['kind']}: {a['what']})" for a in found
        )

    return "; ".join(
        f"{engine['label']}: "
        + ", ".join(f"{change['name']} ({change['kind']}: {change['what']})" for change in engine["changes"])
        + alternatives(engine)
        for engine in engines.values()
    )


def load_generation(manifest: BenchManifest) -> str:
    """Where k6 ran: beside the servers (so the figures include its CPU use) or split over load generators."""
    generators = manifest.load_generators
    if not generators:
        return "k6 ran on the server host itself: load generation shared the CPU with the servers"
    segments = ", ".join(f"{g.host} (segment {g.execution_segment})" for g in generators)
    return (
        f"{len(generators)} load generator(s), one k6 execution segment each: {segments}; "
        f"servers listened on {manifest.bind_address}; percentiles computed from all their raw samples"
    )


# What the harness records of each server run, facts only: how it ended and what it counted. The
# statistics (percentiles, rates, dropped iterations, plateaus) are the report's own, elsewhere.
OUTCOME_FACTS = [
    "server", "status", "reason", "phaseAtEnd", "seconds", "jfrStreaming", "repeat", "socketsPlanned", "socketsOpened",
    "peakOpenSockets", "peakRssBytes", "peakThreads", "jsonRequests", "failedChecks", "pinnedEvents", "marks",
]  # fmt: skip


def outcomes(run: Run) -> pd.DataFrame:
    """The facts of each server run's outcome, one row each; a fact the harness left out is its default (blank for none: a reason
    for a pass that ran, no marks)."""
    rows = [dict(_shown(server.outcome.facts()), run=server.name) for server in run.servers]
    return pd.DataFrame(rows).reindex(columns=["run", *OUTCOME_FACTS])


def _shown(facts: dict) -> dict:
    """An outcome's facts as a table shows them: a list as a list, and none (no marks) blank."""
    return {name: (list(value) or None) if isinstance(value, tuple) else value for name, value in facts.items()}


KERNEL_SOURCES = {
    "cgroup-v1": "the server's own cgroup (v1): memory.kmem and memory.kmem.tcp",
    "sockstat-host": "/proc/net/sockstat's TCP memory, host-wide: both ends of every loopback socket, k6's too",
}


def pass_order(run: Run) -> str:
    """The passes in the order they ran, and the seed that shuffled them."""
    seed = f" (shuffled with seed {run.pass_seed})" if run.pass_seed is not None else ""
    return " → ".join(run.pass_order) + seed


def cpu_split(run: Run) -> str:
    """Which CPUs the server had to itself, and which the load (k6, stub, harness) ran on."""
    split = run.cpu_split
    if not split:
        return "none: the server and the load shared the host's CPUs"
    server, load = split.server_cpus, split.load_cpus
    return f"server on CPU {', '.join(map(str, server))} (its JVM sized to {len(server)}); k6, stub and harness on CPU {', '.join(map(str, load))}"
