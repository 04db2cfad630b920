"""What a reader's own workload would take on each server, from the slopes the lab measured: `make advise SOCKETS=50000 RATE=2000
WAIT_MS=100`.

A workload is idle sockets held open, plus requests arriving at a rate that each wait some time on a downstream call. By Little's
law the requests in flight are the rate times the wait. Each server's needs are read off its own lines, pass by pass, then taken
across passes (stats.across):
- the live heap and RSS: memory at rest plus bytes per idle socket times the sockets (the bench's socket steps), plus bytes per
  request in flight times the requests in flight (a `make sweep` folder's /dashboard snapshots, where one is given);
- CPU cores: the fixed part plus CPU per request times the rate, from the line of the server's cores against the rate it answered
  second by second on its whole CPUs, over the bench's warm-up and steady phase of /dashboard where the requests wait, of /json
  where they do not (cpu.whole_cpu_fit). Not the curve's line: that one is fitted under a CPU budget, where a request costs
  less than on a whole CPU, so it falls short of the cores a server measured at its own shape (docs/under-load.md, "Capacity
  per CPU");
- threads and open files: their lines against the idle sockets, plus what each request in flight holds (the sweep's threads
  against requests in flight), and a file for each connection the requests come over: those the clients keep open, and at least
  one a request in flight.
Each need is set against this host's limit for it (the run's heap, open files, pid_max and threads-max, the server's CPUs; a
bounded pool's bound is not one, as the harness sizes it to each run), and the first limit a server would hit is the one its
workload fills the most. A line taken far past the sockets a run held assumes
nothing changes on the way: read it as where the measured slopes lead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import stats
from ..bench import cpu, memory
from ..folder import catalogue, repeats
from ..folder.run import Run, ServerRun
from ..folder.sweepfolder import SweepRun
from ..stats.numbers import shown
from ..sweep import sweepmemory
from . import perpass
from .verdict_words import HOST_TOOK_EVERY_ROUND

MIB = 1 << 20


@dataclass(frozen=True)
class Workload:
    sockets: int
    rate_per_s: float
    wait_ms: float
    # The connections the requests come over, kept open between requests (a client's pool of keep-alive connections, or a load
    # generator's). 0: each request opens its own and closes it after.
    connections: float = 0

    @property
    def in_flight(self) -> float:
        """Little's law: requests in flight are the arrival rate times the time each spends."""
        return self.rate_per_s * self.wait_ms / 1000

    @property
    def connections_held(self) -> float:
        """The request connections the server holds a file for: those kept open, and at least one for each request in flight."""
        return max(self.connections, self.in_flight)

    @property
    def endpoint(self) -> str:
        """The curve's endpoint whose CPU per request stands for the workload's: /dashboard waits on downstream calls, /json not."""
        return "dashboard" if self.wait_ms > 0 else "json"

    def __str__(self) -> str:
        requests = f"{self.rate_per_s:,.0f} requests a second each waiting {self.wait_ms:g} ms"
        kept = f", over {self.connections:,.0f} connections kept open" if self.connections > self.in_flight else ""
        return f"{self.sockets:,} idle sockets and {requests} ({self.in_flight:,.0f} in flight){kept}"


MISSION = Workload(50_000, 2_000, 0)

# The needs, each with the host's limit it is set against (a manifest's `limits` key, or how the run says it otherwise).
NEEDS = ("live heap (MiB)", "RSS (MiB)", "CPU (cores)", "threads", "open files")
COLUMNS = ["server", "label", *NEEDS, "the first limit it would hit"]
# A pass's row's limits, {need: Limit}.
LIMITS = "limits"


@dataclass(frozen=True)
class Limit:
    """The most of a need a server may have here, and whose limit that is: the host's (`here`), or the server's own."""

    most: float
    whose: str = "here"


# The needs read off a pass's seconds under load, which the host's other tenants move: the CPU. The rest are read off its memory
# snapshots and counts at rest, which they do not (perpass.UNTIMED).
TIMED = ("CPU (cores)",)
# per_pass's column: why the host took some pass of the row's round, empty where it took none.
HOST_ROUND = "the host took its round"
# The standard error of a pass's CPU need: of advise's line at the rate (stats.CapacityFit.stderr_cores_at).
CPU_STDERR = "CPU (cores) stderr"


def per_pass(runs: list[Run], workload: Workload, sweep: SweepRun | None = None) -> pd.DataFrame:
    """One row per compared pass (repeats.each_pass, arms left out): each of NEEDS for `workload`, and each need over its limit;
    the pass's round, and HOST_ROUND: why the host took some pass of that round (cpu.host_took), empty where it took none. An
    arm's pass counts there as any other, as in the verdict (perpass.for_verdict)."""
    in_flight = _per_request_in_flight(sweep)
    taken = perpass.rounds_host_took(
        pd.DataFrame(
            [{**base, "round": s.repeat, "host": cpu.host_took(s, cpu.host_cpus(run)) or ""} for run, s, base in repeats.each_pass(runs)],
            columns=[*repeats.PASS_COLUMNS, "round", "host"],
        )
    )
    rows = []
    for run, server, base in repeats.each_pass(runs):
        if catalogue.arm_of(server.server) is not None:
            continue  # an arm is the server without some of the lab's changes: a reader runs the server
        extra = in_flight.get(server.server, {})
        points = memory.plateaus(server)
        cores = cpu.whole_cpu_fit(server, workload.endpoint)
        needs = {
            "live heap (MiB)": (memory.per_socket_fit(server, "live heap").at(workload.sockets) + workload.in_flight * extra.get("live heap", 0))
            / MIB,
            "RSS (MiB)": (memory.per_socket_fit(server, "RSS").at(workload.sockets) + workload.in_flight * extra.get("RSS", 0)) / MIB,
            "CPU (cores)": cores.cores_at(workload.rate_per_s),
            # Counts, fitted over every socket step: a step whose RSS was still moving as the collector gave memory back holds
            # its threads and files all the same.
            "threads": _whole(
                memory.per_connection(points, "threads", settled_only=False).at(workload.sockets) + workload.in_flight * extra.get("threads", 0)
            ),
            "open files": _whole(memory.per_connection(points, "fds", settled_only=False).at(workload.sockets) + workload.connections_held),
        }
        limits = _limits(run, server)
        shares = {f"{n} of its limit": needs[n] / limits[n].most if limits[n].most else math.nan for n in NEEDS}
        rows.append(
            {
                **base,
                "round": server.repeat,
                HOST_ROUND: ", ".join(taken.get((base["run folder"], server.repeat), [])),
                **needs,
                **shares,
                LIMITS: limits,
                CPU_STDERR: cores.stderr_cores_at(workload.rate_per_s),
            }
        )
    return pd.DataFrame(rows)


def _whole(count: float) -> float:
    """A count a line gives, as the whole number a process has: 17,278.4 open files is 17,278, which is what /proc counts, where a
    fraction of a file would set the two apart."""
    return count if math.isnan(count) else float(round(count))


def table(runs: list[Run], workload: Workload, sweep: SweepRun | None = None) -> pd.DataFrame:
    """Per server: each need as the median across passes with its range, and the first limit it would hit (COLUMNS). A TIMED need
    leaves out the rounds the host took, as the verdict does (perpass.judged), and says so where it took them all."""
    return of_passes(per_pass(runs, workload, sweep))


def of_passes(passes: pd.DataFrame) -> pd.DataFrame:
    """table, from per_pass's rows."""
    if passes.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for (server, label), group in passes.groupby(["server", "label"], sort=False):
        kept = group[group[HOST_ROUND] == ""]
        row = {"server": server, "label": label}
        shares = {}
        for need in NEEDS:
            counted = kept if need in TIMED else group
            row[need] = need_shown(stats.across(counted[need])) if len(counted) else HOST_TOOK_EVERY_ROUND
            shares[need] = stats.across(counted[f"{need} of its limit"]).median if len(counted) else math.nan
        # A server's limits are its first pass's: they are the host's, the same for the run's every pass.
        row["the first limit it would hit"] = _first_limit(shares, group[LIMITS].iloc[0])
        if kept.empty:
            row["the first limit it would hit"] += f" (its CPU not judged: {HOST_TOOK_EVERY_ROUND})"
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def host_note(passes: pd.DataFrame) -> str:
    """The rounds a TIMED need leaves out (per_pass's rows), in a sentence; empty where it leaves none."""
    taken = passes[passes[HOST_ROUND] != ""].drop_duplicates(["run folder", "round"]) if not passes.empty else passes
    if taken.empty:
        return ""
    rounds = perpass.rounds_said({(r["run folder"], r["round"]): [r[HOST_ROUND]] for _, r in taken.iterrows()})
    return f"The CPU leaves out the rounds the host took; the memory, threads and files keep them: {rounds}."


def _limits(run: Run, server: ServerRun) -> dict[str, Limit]:
    """Each need's limit for `server`: the run's heap, the server's CPUs, open files, and for threads the smaller of pid_max and
    threads-max. A bounded pool's bound is not one: the harness sizes it to each run's sockets and load (Preflight.poolThreads),
    as it would for this shape."""
    limits = run.limits
    cpus = len(run.cpu_split.server_cpus) if run.cpu_split else 0
    return {
        "live heap (MiB)": Limit(run.heap_bytes / MIB),
        "RSS (MiB)": Limit(math.nan),  # the host's memory is not a run's limit: RSS is shown, not judged
        "CPU (cores)": Limit(float(cpus) if cpus else math.nan),
        "threads": Limit(float(min(limits.pid_max, limits.threads_max))),
        "open files": Limit(float(limits.open_files_hard)),
    }


def _first_limit(shares: dict[str, float], limits: dict[str, Limit]) -> str:
    """The need that fills its limit the most: named as the first limit hit when it reaches it, else the largest share."""
    judged = {n: s for n, s in shares.items() if not math.isnan(s)}
    if not judged:
        return "no limit to judge against"
    need, share = max(judged.items(), key=lambda item: item[1])
    limit = limits[need]
    what = f"{need.split(' (')[0]} (needs {share:.0%} of the {limit.most:,.0f} {_unit(need)} {limit.whose})"
    return what if share >= 1 else f"none; closest: {what}"


def _unit(need: str) -> str:
    return need.split("(")[1].rstrip(")") if "(" in need else need


def need_shown(value: stats.Across) -> str:
    """A need as the table shows it, whose heading says over how many passes: `median [lowest, highest]`."""
    return shown(value, passes=False)


def _per_request_in_flight(sweep: SweepRun | None) -> dict[str, dict[str, float]]:
    """{server: {"live heap": bytes, "RSS": bytes, "threads": threads}} per request in flight from a sweep's /dashboard steps: the
    memory snapshots' bytes per request (sweepmemory, median over passes and steps), and the slope of the peak threads against the
    requests in flight. Empty without a sweep: the needs then leave what requests in flight hold out, and the CLI says so."""
    if sweep is None:
        return {}
    found: dict[str, dict[str, float]] = {}
    memory_per = sweepmemory.per_in_flight(sweep)
    dashboard = memory_per[memory_per["workload"] == "dashboard"]
    for (server, measure), group in dashboard.groupby(["server", "measure"]):
        if measure in ("live heap", "RSS"):
            found.setdefault(server, {})[measure] = float(group["bytes_per_request"].median())
    steps = sweep.steps[sweep.steps["workload"] == "dashboard"]
    for server, group in steps.groupby("server"):
        if group["concurrency"].nunique() >= 2:
            found.setdefault(server, {})["threads"] = float(np.polyfit(group["concurrency"], group["threads_peak"], 1)[0])
    return found
