"""The CPU of every process on the server's host (cpu.csv): the server, k6, the stub and the harness, the host's steal time, and how
busy the server's CPUs and the load's CPUs were; and whether a pass's load generator, or its server, was saturated.

A latency measured while k6 itself was short of CPU is k6's: requests start late, and their time waiting for k6 counts as the
server's. The lab saw it (docs/JOURNAL.md): with the server alone on one core, k6 on the other dropped iterations while the server used a quarter
of its core. A latency measured while the server's own CPUs were full is the server's, but it is its queue's more than its
answer's, and it is not the "well under saturation" latency the rate was chosen for: the platform server holding 15,000 threads
on one CPU was there at 200/s. So each pass's /json phase is checked for both, and a pass is marked, with why.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import stats
from ..folder import repeats
from ..folder.run import Run, ServerRun
from . import latency, vegeta_sent

PROCESSES = ["server", "k6", "vegeta", "wrk", "stub", "harness"]
PHASE = "json"  # the phase the latency comparison measures

# The load generator was the bottleneck of a pass when its CPUs were at least BUSY busy in at least BUSY_SHARE of the /json phase's
# seconds; the server was saturated when its own CPUs were. Why these: k6 starts each request on time only while it has CPU to
# spare, and a server answers at once only while it does; 90% busy leaves a scheduler next to none (a one-second mean of 90%
# hides stretches at 100%), and one second in five at that, over a phase of tens of seconds, is enough to fill the tail the p99
# reads. Why not "k6 dropped iterations": a server that stalls (a platform-thread pool full of blocked threads) makes k6 drop
# iterations too, with k6 idle; only the CPUs say whose they were.
BUSY = 0.9
BUSY_SHARE = 0.2
RULE = (
    f"A pass is marked when the load's CPUs (the load generator the bottleneck), or the server's (the server saturated), were "
    f"{BUSY:.0%} busy or more in at least {BUSY_SHARE:.0%} of the /json phase's seconds. Dropped iterations alone do not mark it: "
    "a stalled server makes k6 drop them too, with k6 idle."
)


def in_phase(server: ServerRun, phase: str = PHASE) -> pd.DataFrame:
    """cpu.csv's seconds of `phase`."""
    frame = server.cpu
    return frame[frame["phase"] == phase] if not frame.empty else frame


def server_busy(seconds: pd.DataFrame) -> float:
    """How busy the server was over `seconds` (cpu.csv's rows), 0..1: the share of its CPU budget it used, in the seconds it had
    one (server_budget: the curve's steps under Profile.curveServerCpuBudget), for a server held to a quarter of a CPU is full at a
    quarter; otherwise how busy its CPUs were (server_cpus_busy). NaN where cpu.csv says neither."""
    if seconds.empty:
        return math.nan
    if "server_budget" in seconds.columns and seconds["server_budget"].notna().any():
        budgeted = seconds[seconds["server_budget"].notna() & seconds["server"].notna()]
        return float((budgeted["server"] / budgeted["server_budget"]).mean()) if len(budgeted) else math.nan
    busy = seconds["server_cpus_busy"].dropna() if "server_cpus_busy" in seconds.columns else pd.Series(dtype=float)
    return float(busy.mean()) if len(busy) else math.nan


def busy_share(server: ServerRun, cpus: str) -> float | None:
    """The share of the /json phase's seconds in which `cpus` (cpu.csv's load_cpus_busy or server_cpus_busy) were BUSY busy or more;
    None where cpu.csv does not say."""
    seconds = in_phase(server)[cpus].dropna() if not server.cpu.empty else pd.Series(dtype=float)
    return float((seconds >= BUSY).mean()) if len(seconds) else None


def bottleneck(server: ServerRun) -> str | None:
    """Why this pass's load generator was its bottleneck in the /json phase, in a sentence; None if it was not, or cannot be told."""
    share = busy_share(server, "load_cpus_busy")
    if share is None or share < BUSY_SHARE:
        return None
    return (
        f"the load generator was the bottleneck: its CPUs were {BUSY:.0%} busy or more in {share:.0%} of the /json phase's "
        f"seconds (the mark: {BUSY_SHARE:.0%}), so this pass's latency figures measure the load generator, not the server"
    )


# A server whose CPUs were busy while it used less than this share of their busy cores did not fill them: other work did, and
# the pass measured that work's turn on its CPUs, not the server at its limit (docs/JOURNAL.md, "The fourth pair").
OWN_SHARE_OF_BUSY = 0.5
# How saturated() opens a sentence that says so, and shared_by_others() reads it back: the one string both sides hold.
SHARED = "other work shared the server's CPUs"


# A second in which the hypervisor took more than HOST_TOOK_CORES of the host (its steal time) was the host's other tenants': the
# harness marks a host check above the same (QuietHost.STEAL_CORES_MARK_ABOVE). A pass with more than HOST_TOOK_SHARE of its
# seconds so taken measured the host as well as its server, well clear of what quiet passes show, and its slowing outlasts the
# seconds taken (docs/JOURNAL.md, "A round the host took").
HOST_TOOK_CORES = 0.25
HOST_TOOK_SHARE = 0.05


def host_took(server: ServerRun, host_cpus: int) -> str | None:
    """Why the host took this pass from its server, in a sentence: the hypervisor took over HOST_TOOK_CORES of a core in more than
    HOST_TOOK_SHARE of the pass's seconds. Over the whole pass, not one phase: what the host left behind outlasted the seconds it
    took. None where it did not, or cpu.csv does not say."""
    steal = server.cpu["steal"].dropna() if not server.cpu.empty and "steal" in server.cpu.columns else pd.Series(dtype=float)
    if steal.empty:
        return None
    taken = steal * host_cpus > HOST_TOOK_CORES
    if taken.mean() <= HOST_TOOK_SHARE:
        return None
    return (
        f"the host took the pass: its hypervisor took over {HOST_TOOK_CORES} of a core in {int(taken.sum())} of its "
        f"{len(taken)} seconds ({taken.mean():.0%}; the mark: {HOST_TOOK_SHARE:.0%})"
    )


def server_cpu_count(run: Run) -> int | None:
    """How many CPUs the server had to itself (the manifest's cpuSplit); None without a CPU split."""
    return len(run.cpu_split.server_cpus) if run.cpu_split else None


def saturated(server: ServerRun, server_cpus: int | None) -> str | None:
    """Why this pass's server's CPUs were full in the /json phase, in a sentence; None if they were not, or cannot be told. Where
    `server_cpus` is known and the server itself used under OWN_SHARE_OF_BUSY of their busy cores in those seconds, the sentence
    says that other work filled them: the pass is marked all the same, for its figures hold that work's delays."""
    share = busy_share(server, "server_cpus_busy")
    if share is None or share < BUSY_SHARE:
        return None
    when = f"{BUSY:.0%} busy or more in {share:.0%} of the /json phase's seconds (the mark: {BUSY_SHARE:.0%})"
    own, busy_cores = _own_and_busy_cores(server, server_cpus)
    if own < OWN_SHARE_OF_BUSY * busy_cores:
        return (
            f"{SHARED}: they were {when}, and the server itself used {own:.2f} of their {busy_cores:.2f} busy "
            "cores in those seconds, so this pass's figures hold another program's turn on its CPUs, not the server at its limit"
        )
    return (
        f"the server was saturated: its CPUs were {when}, so this pass's latency figures hold requests queued for its CPU, not a latency "
        "well under saturation"
    )


def shared_by_others(why_saturated: str | None) -> bool:
    """Whether a saturated() sentence says that other work, not the server, filled its CPUs."""
    return bool(why_saturated) and why_saturated.startswith(SHARED)


def _own_and_busy_cores(server: ServerRun, server_cpus: int | None) -> tuple[float, float]:
    """The server's mean cores, and its CPUs' mean busy cores, over the /json seconds they were BUSY busy; NaNs where not known."""
    seconds = in_phase(server)
    busy = seconds[seconds["server_cpus_busy"] >= BUSY] if "server_cpus_busy" in seconds.columns else seconds.iloc[0:0]
    if not server_cpus or busy.empty or busy["server"].isna().all():
        return math.nan, math.nan
    return float(busy["server"].mean()), float(busy["server_cpus_busy"].mean()) * server_cpus


def bottleneck_known(server: ServerRun) -> bool:
    """Whether cpu.csv says how busy the load's CPUs were (it cannot without a CPU split, or without cpu.csv)."""
    return not server.cpu.empty and in_phase(server)["load_cpus_busy"].notna().any()


def server_cpu_per_request(server: ServerRun, requests_per_second: float) -> float:
    """The server's CPU time (seconds) per /json request answered: its mean cores over the /json phase (cpu.csv: the process's
    utime + stime) over the rate it answered. It counts all the server did meanwhile, the idle sockets' pings and the GC included;
    NaN without cpu.csv's /json seconds or an answered rate.
    """
    cores = in_phase(server)["server"].dropna() if not server.cpu.empty else pd.Series(dtype=float)
    return _per_request(cores, requests_per_second)


def server_cpu_per_request_less_jit(server: ServerRun, requests_per_second: float) -> float:
    """server_cpu_per_request less the server's JIT compilers' cores in each second (server_less_jit): what a request cost a
    server long up, its paths compiled. The /json phase is the first load a pass offers, after a warm-up of seconds, and the
    compilers still ran in it for 0.2 to 0.5 of a core-second of its 15 in one run's Ktor passes: the steady rate's figure
    moved with how far they had got. NaN where cpu.csv did not split the compilers out, or as server_cpu_per_request."""
    seconds = in_phase(server)
    if "server_jit" not in seconds.columns or seconds["server_jit"].isna().all():
        return math.nan
    return _per_request(server_less_jit(seconds.dropna(subset=["server"])), requests_per_second)


def _per_request(cores: pd.Series, requests_per_second: float) -> float:
    """Mean cores over the rate answered: CPU seconds a request; NaN without seconds or an answered rate."""
    if cores.empty or not requests_per_second > 0:
        return math.nan
    return float(cores.mean()) / requests_per_second


def offered_by(run: Run) -> str:
    """The load generator that offered the /json phase: vegeta where the profile gave it the phase (jsonGenerator), k6 otherwise."""
    return "vegeta" if vegeta_sent.steady_phase(run, PHASE) is not None else "k6"


def load_cpu_per_request(server: ServerRun, requests_per_second: float, generator: str = "k6") -> float:
    """The CPU time (seconds) of `generator`, the load generator that offered the /json phase, per request it sent and got answered:
    its mean cores over the phase over that rate.

    A reference for the host's speed: the generator does the same work for every request to every server (the contract fixes the
    answers), so at one rate its CPU per request moves with the host, not with the server. Two runs whose generator needed different
    CPU per request ran on a host of different speed, and their timings differ for that reason too.
    """
    cores = in_phase(server)[generator].dropna() if not server.cpu.empty and generator in server.cpu.columns else pd.Series(dtype=float)
    if cores.empty or not requests_per_second > 0:
        return math.nan
    return float(cores.mean()) / requests_per_second


LOAD_PER_REQUEST = "load generator CPU per /json request (µs)"


def steal_cores(run: Run) -> stats.Across:
    """The host's CPU the hypervisor gave to others, in cores, a compared pass's mean over its seconds: across passes. The same
    for every server of a round in principle, since it is the host's; it says how far the run's figures are this host's at all
    (the harness marks a host check above QuietHost.STEAL_CORES_MARK_ABOVE)."""
    cpus = host_cpus(run)
    means = [float(s.cpu["steal"].mean()) * cpus for s in repeats.compared(run) if not s.cpu.empty and "steal" in s.cpu.columns]
    return stats.across([m for m in means if not math.isnan(m)])


def host_cpus(run: Run) -> int:
    """The host's online CPUs, as its first host check read them, else the CPUs the run split between server and load."""
    checks, split = run.manifest.host_checks, run.cpu_split
    return checks[0].reading.online_cpus if checks else (len(split.server_cpus) + len(split.load_cpus) if split else 0)


def phase_table(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass: the mean cores of each process in the /json phase, the host's steal, how busy the server's and the
    load's CPUs were, the share of seconds each were BUSY busy, the CPU per request of the load generator that offered the phase
    (the host's speed), the iterations it dropped, and the marks."""
    rows, served = [], {}
    for run, server, base in repeats.each_pass(runs):
        seconds = in_phase(server)
        row = {"server": base["label"], "pass": base["pass"]}
        if seconds.empty:
            rows.append({**row, "mark": "no cpu.csv in this pass"})
            continue
        if run.folder not in served:
            served[run.folder] = latency.endpoint_table(run, PHASE).set_index("run")
        for process in PROCESSES:
            row[f"{process} (cores)"] = seconds[process].mean() if process in seconds.columns else math.nan
        row["steal (share)"] = seconds["steal"].mean()
        row["server CPUs busy"] = seconds["server_cpus_busy"].mean()
        row["load CPUs busy"] = seconds["load_cpus_busy"].mean()
        for cpus, column in (("load_cpus_busy", "load"), ("server_cpus_busy", "server")):
            share = busy_share(server, cpus)
            row[f"seconds the {column} CPUs were {BUSY:.0%}+ busy"] = math.nan if share is None else share
        generator = offered_by(run)
        row["load generator"] = generator
        row[LOAD_PER_REQUEST] = 1e6 * load_cpu_per_request(server, served[run.folder]["requests_per_second"].get(server.name, math.nan), generator)
        row["dropped iterations"] = served[run.folder]["dropped_iterations"].get(server.name, math.nan)
        why_full = saturated(server, server_cpu_count(run))
        full = "server's CPUs shared with other work" if shared_by_others(why_full) else "server was saturated"
        marks = [what for what, why in (("load generator was the bottleneck", bottleneck(server)), (full, why_full)) if why]
        if not bottleneck_known(server):
            marks.append("cannot tell: the load's CPUs were not measured (no CPU split, or k6 on other hosts)")
        row["mark"] = "; ".join(marks)
        rows.append(row)
    return pd.DataFrame(rows)


def bottleneck_notes(runs: list[Run]) -> list[str]:
    """One sentence per compared pass whose load generator was its bottleneck."""
    return _notes(runs, lambda _run, server: bottleneck(server))


def saturation_notes(runs: list[Run]) -> list[str]:
    """One sentence per compared pass whose server's CPUs were full: by the server, or by other work."""
    return _notes(runs, lambda run, server: saturated(server, server_cpu_count(run)))


def host_notes(runs: list[Run]) -> list[str]:
    """One sentence per compared pass the host took (host_took)."""
    return _notes(runs, lambda run, server: host_took(server, host_cpus(run)))


def _notes(runs: list[Run], why_marked) -> list[str]:
    notes = []
    for run, server, _ in repeats.each_pass(runs):
        why = why_marked(run, server)
        if why:
            notes.append(f"{run.folder.name}/{server.name}: {why}")
    return notes


def whole_cpu_fit(server: ServerRun, endpoint: str) -> stats.CapacityFit:
    """The server's cores against the rate it answered, second by second, over `endpoint`'s warm-up (the rate rising from nothing)
    and its steady phase (lab.bench.load.LoadTimeline's `<endpoint>-warmup` and `<endpoint>`), where it ran on its whole CPUs with
    the idle sockets open: a line (stats.capacity_fit) whose intercept is what the server spends serving nothing and whose slope is
    a request's cost, unthrottled. The curve's line is fitted under a CPU budget, and a throttled server batches its work: its
    requests cost less there (docs/under-load.md, "Capacity per CPU"). The JIT compilers' cores are left out of each second: the
    warm-up compiles the endpoint's path, which a server long up has done. A second's rate is the answers the wire saw in it; NO_FIT
    where the pass has no wire capture, or not both phases."""
    phases = [f"{endpoint}-warmup", endpoint]
    seconds = server.cpu[server.cpu["phase"].isin(phases)] if not server.cpu.empty else server.cpu
    wire = server.wire
    # Without the warm-up, the seconds' rates are one rate and its jitter, which set no line.
    if wire.empty or not set(phases) <= set(seconds["phase"]):
        return stats.NO_FIT
    # cpu.csv's row at t is the second up to t: count the answers the wire saw in (t - 1, t].
    answered_at = np.sort(wire.loc[wire["endpoint"] == endpoint, "time_s"].astype(float).to_numpy())
    ends = seconds["time_s"].astype(float).to_numpy()
    rates = np.searchsorted(answered_at, ends, side="right") - np.searchsorted(answered_at, ends - 1, side="right")
    return stats.capacity_fit(rates, server_less_jit(seconds).to_numpy(dtype=float))


def server_less_jit(seconds: pd.DataFrame) -> pd.Series:
    """cpu.csv's server cores in each second less its JIT compilers' (none taken where cpu.csv did not split them out): what a
    server long up, its paths compiled, spends."""
    jit = seconds["server_jit"].fillna(0.0) if "server_jit" in seconds.columns else 0.0
    return seconds["server"] - jit
