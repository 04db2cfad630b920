"""The latency-throughput curve's steps: each endpoint offered at rising constant rates, the idle sockets open,
and at each step what the server achieved, what the load generator dropped, the latency (the generator's and the wire's), the CPU
and the server's open files. labanalysis.curve.curve_verdicts judges the steps, and labanalysis.curve.curve_tables shows them to a reader.

The harness makes the steps (lab.bench.load.LoadTimeline) and records them in the manifest's `timeline`: a step is a phase named
`<endpoint>-at-<rate>`, after a `<endpoint>-to-<rate>` phase in which the rate settles, which is not measured. After each
endpoint's ladder a profile may have search slots (`<endpoint>-search-<n>`), whose rate the harness chose while the pass ran, between
the highest step held and the step above it (lab.bench.load.CurveSearch); the pass's `curve-search.csv` gives each its rate, and the
pass's clock named its phases for it, so a searched step is read as a ladder step is, for that pass alone. After the /json ladder
a profile may have the full step (`json-full`, after `json-to-full`): wrk's closed loop, at no rate of its own, read for what a
core serves with the server's CPU full (lab.bench.load.ClosedLoopStep; closed-loop.csv). The wire and cpu.csv
name each of their rows' phase by the harness's clock. The step's load generator is k6 or vegeta (the phase's `generator`, from the
profile's `curveGenerator`): k6 tags each request with the phase it was sent in, and its dropped iterations are counted by their
timestamps over the phase's whole seconds; vegeta's requests are those its attack for the step had due within it
(labanalysis.curve.curve_sent).
So each figure of a step counts that step alone.
"""

from __future__ import annotations

import math
import re
import sys

import pandas as pd

from ..bench import cpu, k6gc, latency, zgc
from ..folder import repeats
from ..folder.run import Run, ServerRun, load_run
from . import curve_verdicts
from .curve_sent import k6_figures, vegeta_figures, wrk_figures
from .curve_step import Step
from .curve_verdicts import cpu_slopes, highest_sustained, judged

ENDPOINTS = ("json", "dashboard")
STEP_PHASE = re.compile(r"^(?P<endpoint>[a-z]+)-at-(?P<rate>\d+)$")
SEARCH_SLOT = re.compile(r"^(?P<endpoint>[a-z]+)-search-(?P<slot>\d+)$")
FULL_STEP = re.compile(r"^(?P<endpoint>[a-z]+)-full$")

COLUMNS = [
    *repeats.PASS_COLUMNS,
    "endpoint",
    "offered_per_s",
    "searched",
    "closed_loop",
    "generator",
    "achieved_per_s",
    "dropped",
    "failed",
    "load_p50_ms",
    "load_p99_ms",
    "wire_p50_ms",
    "wire_p99_ms",
    "wire_answered_per_s",
    "server_cores",
    "server_busy",
    "server_budget_cores",
    "server_cpu_cores",
    "server_throttled_share",
    "server_jit_cores",
    "server_gc_cores",
    "server_vm_cores",
    "load_busy",
    "k6_cores",
    "vegeta_cores",
    "wrk_cores",
    "load_others_cores",
    "load_steal_cores",
    "server_files_max",
    "files_limit",
    "k6_gc_ms",
    "server_gc_major_s",
    "bound_ms",
    "judged_on",
    "sustained",
    "judged",
    "why_not",
    "ran_out",
]

# The figures of a step a reader compares across servers: (column, lower is better). The server's CPU busy is of its budget
# where it had one (cpu.server_busy).
FIGURES = {
    "achieved (req/s)": ("achieved_per_s", False),
    "p99 on the wire (ms)": ("wire_p99_ms", True),
    "the load generator's p99 (ms)": ("load_p99_ms", True),
    "p50 on the wire (ms)": ("wire_p50_ms", True),
    "dropped iterations": ("dropped", True),
    "server CPU busy (%)": ("server_busy_percent", True),
    "load CPU busy (%)": ("load_busy_percent", True),
    "other processes on the load CPUs (cores)": ("load_others_cores", True),
    "stolen from the load CPUs by the hypervisor (cores)": ("load_steal_cores", True),
    "the server's JIT compilers (cores)": ("server_jit_cores", True),
    "the server's collector (cores)": ("server_gc_cores", True),
    "the server's VM thread (cores)": ("server_vm_cores", True),
}


def steps(run: Run, server: ServerRun | None = None) -> list[Step]:
    """The run's measured curve steps, in the order they ran; none for a run without a curve. With
    `server`, that pass's own: its searched steps (from its curve-search.csv) are in, and the ladder's steps its search did not offer
    (the server resting, past its limit) and the search slots it offered nothing in are out."""
    found = []
    settles = {p.name: p.from_seconds for p in run.timeline}
    chosen = _chosen_rates(server)
    for phase in run.timeline:
        match = STEP_PHASE.match(phase.name)
        slot = SEARCH_SLOT.match(phase.name)
        full = FULL_STEP.match(phase.name)
        if full and phase.endpoint == full["endpoint"]:
            settle = settles.get(f"{full['endpoint']}-to-full")
            found.append(Step(phase.name, full["endpoint"], 0, phase.from_seconds, phase.to_seconds, phase.generator, settle, closed_loop=True))
        elif slot and phase.endpoint == slot["endpoint"] and chosen.get(phase.name, 0) > 0:
            rate = chosen[phase.name]
            found.append(
                Step(
                    f"{slot['endpoint']}-at-{rate}",
                    slot["endpoint"],
                    rate,
                    phase.from_seconds,
                    phase.to_seconds,
                    phase.generator,
                    settles.get(f"{slot['endpoint']}-to-search-{slot['slot']}"),
                    searched=True,
                )
            )
        elif match and phase.endpoint == match["endpoint"] and chosen.get(phase.name, 1) > 0:
            settle = settles.get(f"{match['endpoint']}-to-{match['rate']}")
            found.append(
                Step(
                    phase.name,
                    match["endpoint"],
                    int(match["rate"]),
                    phase.from_seconds,
                    phase.to_seconds,
                    phase.generator,
                    settle,
                )
            )
    return found


def _chosen_rates(server: ServerRun | None) -> dict[str, int]:
    """{planned phase: rate offered} of the choices `server`'s search made (its curve-search.csv): a search slot's rate, or 0 for a
    slot or a ladder step it offered nothing in; empty without one."""
    if server is None or server.curve_search.empty:
        return {}
    return {str(r.planned): int(r.rate_per_s) for r in server.curve_search.itertuples()}


def has_curve(runs: list[Run]) -> bool:
    return any(steps(run) for run in runs)


def bound_ms(run: Run, endpoint: str) -> float:
    """The profile's p99 bound for a sustained step of `endpoint`; NaN where the profile sets none (0, its default)."""
    profile = run.manifest.profile
    bound = profile.json_curve_p99_bound_ms if endpoint == "json" else profile.dashboard_curve_p99_bound_ms
    return bound if bound > 0 else math.nan


def step_row(run: Run, server: ServerRun, step: Step) -> dict:
    """One pass's figures at one step (COLUMNS after the pass's)."""
    figures = {"vegeta": vegeta_figures, "wrk": wrk_figures}.get(step.generator, k6_figures)
    sent = figures(server, step)
    durations, failed = sent["ms"], sent["failed"]
    wire = server.wire_in(step.phase)
    on_wire = wire.loc[wire["endpoint"] == step.endpoint, "ms"].astype(float) if not server.wire.empty else pd.Series(dtype=float)
    seconds = cpu.in_phase(server, step.phase) if not server.cpu.empty else pd.DataFrame()
    load_cpus = len(run.cpu_split.load_cpus) if run.cpu_split else 0
    row = {
        "endpoint": step.endpoint,
        # A closed loop offers no rate: it sends as the answers come.
        "offered_per_s": math.nan if step.closed_loop else step.rate_per_s,
        "searched": step.searched,
        "closed_loop": step.closed_loop,
        "generator": step.generator,
        # What the server served of the rate: answers that did not fail, of the requests sent in the step's seconds, over its length.
        "achieved_per_s": sent["answered"] / step.seconds,
        "dropped": sent["dropped"],
        "failed": failed,
        "load_p50_ms": sent.get("p50_ms", latency.percentile(durations, 50)),
        "load_p99_ms": sent.get("p99_ms", latency.percentile(durations, 99)),
        "wire_p50_ms": latency.percentile(on_wire, 50),
        "wire_p99_ms": latency.percentile(on_wire, 99),
        "wire_answered_per_s": len(on_wire) / step.seconds if not server.wire.empty else math.nan,
        "server_cores": mean(seconds, "server"),
        "server_busy": cpu.server_busy(seconds),
        "server_budget_cores": mean(seconds, "server_budget"),
        # The CPU the server had in the step: its budget, or its whole CPUs where it had none (stats.CapacityFit.per_cpu's).
        "server_cpu_cores": _cpu_cores(run, seconds),
        "server_throttled_share": mean(seconds, "server_throttled_s"),
        # The server's JIT compilers, of server_cores: a path still compiling pays for it under the step's budget.
        "server_jit_cores": mean(seconds, "server_jit"),
        # Its garbage collector's threads, of server_cores: a collector working longer takes the budget from the requests.
        "server_gc_cores": mean(seconds, "server_gc"),
        # Its VM thread, of server_cores: the VM operations, among them the handshakes with every thread ZGC's cycles ask for.
        "server_vm_cores": mean(seconds, "server_vm"),
        "load_busy": mean(seconds, "load_cpus_busy"),
        "k6_cores": mean(seconds, "k6"),
        "vegeta_cores": mean(seconds, "vegeta"),
        "wrk_cores": mean(seconds, "wrk"),
        "load_others_cores": others_on_load(seconds, load_cpus),
        "load_steal_cores": steal_on_load(seconds, load_cpus),
        "server_files_max": files_max(server, step),
        "files_limit": float(run.limits.open_files_hard),
        # k6 collecting its heap stops its requests: a step it fell in measures k6 as much as the server (k6gc).
        "k6_gc_ms": k6gc.wall_ms_within(server, step.from_s, step.to_s),
        # A major ZGC cycle in the step ran on the server's budget: its own cost, named beside a failed step's reasons (zgc).
        "server_gc_major_s": zgc.major_seconds_within(server, seconds),
        "bound_ms": bound_ms(run, step.endpoint),
        "judged_on": "wire" if len(on_wire) else step.generator,
    }
    row.update(judged(row))
    return row


def _cpu_cores(run: Run, seconds: pd.DataFrame) -> float:
    budget = mean(seconds, "server_budget")
    return budget if not math.isnan(budget) else float(len(run.cpu_split.server_cpus)) if run.cpu_split else math.nan


def files_max(server: ServerRun, step: Step) -> float:
    """The most files the server held open in `step`, its settling phase included (proc.csv's fds; NaN without it)."""
    proc = server.proc
    if proc.empty or "fds" not in proc.columns:
        return math.nan
    # By the clock's phase names, as cpu.in_phase reads cpu.csv: the series' times count from the pass's start, the step's from k6's.
    within = proc[proc["phase"].isin([step.phase, f"{step.endpoint}-to-{step.rate_per_s}"])]
    return float(within["fds"].max()) if not within.empty else math.nan


# The lab's own processes on the load's CPUs (cpu.csv's columns): every other process there is the host's.
LOAD_PROCESSES = ("k6", "vegeta", "wrk", "stub", "harness")


def _unexplained_on_load(seconds: pd.DataFrame, load_cpus: int) -> pd.Series:
    """Per second of `seconds` (cpu.csv's rows), the cores of the load's CPUs that were busy and none of the lab's processes used:
    other programs' and, as `load_cpus_busy` counts stolen time as busy, the hypervisor's."""
    lab = sum((seconds[c].fillna(0.0) for c in LOAD_PROCESSES if c in seconds.columns), pd.Series(0.0, index=seconds.index))
    return seconds["load_cpus_busy"] * load_cpus - lab


def _stolen_on_load(seconds: pd.DataFrame, load_cpus: int) -> pd.Series | None:
    """Per second, the cores of the load's CPUs the hypervisor stole; None in a run from before cpu.csv's `load_cpus_steal`."""
    if "load_cpus_steal" not in seconds.columns or seconds["load_cpus_steal"].isna().all():
        return None
    return seconds["load_cpus_steal"] * load_cpus


def others_on_load(seconds: pd.DataFrame, load_cpus: int) -> float:
    """Cores of the load's CPUs that none of the lab's processes used and the hypervisor did not steal, on average over `seconds`
    (cpu.csv's rows): another program on the host. `load_cpus_busy` counts every process and the stolen time, so a step in which
    this or steal_on_load is more than noise measured the host as well as the load generator, and its "which side ran out" with
    it. In a run from before cpu.csv's `load_cpus_steal`, the stolen time is in this figure: in two runs of 12 passes it was most
    of it (docs/JOURNAL.md, "Another program was the hypervisor"). NaN where the load had no CPUs of its own on this host."""
    if not load_cpus or seconds.empty or "load_cpus_busy" not in seconds.columns:
        return math.nan
    stolen = _stolen_on_load(seconds, load_cpus)
    unexplained = _unexplained_on_load(seconds, load_cpus)
    return float((unexplained if stolen is None else unexplained - stolen.fillna(0.0)).mean())


def steal_on_load(seconds: pd.DataFrame, load_cpus: int) -> float:
    """Cores of the load's CPUs the hypervisor stole, on average over `seconds`: time in which neither the load generator nor
    anything else could run there. NaN in a run from before cpu.csv's `load_cpus_steal`, or without load CPUs of its own."""
    stolen = _stolen_on_load(seconds, load_cpus) if load_cpus and not seconds.empty else None
    return math.nan if stolen is None else float(stolen.mean())


def host_on_load_per_pass(runs: list[Run]) -> pd.DataFrame:
    """Per compared pass, over all its seconds: the cores of the load's CPUs that were busy and none of the lab's processes used
    (`unexplained_cores`: other programs' and the hypervisor's), the hypervisor's steal on them (cpu.csv's load_cpus_steal; in a
    run from before it, the host's steal, cpu.csv's `steal`, as if even over its CPUs), and how closely the two moved together
    second by second (Pearson's r). Where r is high and the first is about the second, the other program was the hypervisor."""
    rows = []
    for run, server, base in repeats.each_pass(runs):
        load_cpus = len(run.cpu_split.load_cpus) if run.cpu_split else 0
        seconds = server.cpu
        if not load_cpus or seconds.empty or "load_cpus_busy" not in seconds.columns:
            continue
        stolen = _stolen_on_load(seconds, load_cpus)
        measured = stolen is not None
        both = pd.DataFrame(
            {"unexplained": _unexplained_on_load(seconds, load_cpus), "stolen": stolen if measured else seconds["steal"] * load_cpus}
        ).dropna()
        rows.append(
            {
                **base,
                "unexplained_cores": float(both["unexplained"].mean()),
                "stolen_cores": float(both["stolen"].mean()),
                "steal_measured_on_load_cpus": measured,
                "r": float(both["unexplained"].corr(both["stolen"])) if len(both) > 2 else math.nan,
            }
        )
    return pd.DataFrame(rows)


def main(argv: list[str]) -> int:
    """`python -m labanalysis.curve.curve [--held-back] <run folder>...`: each compared pass's host on the load's CPUs
    (host_on_load_per_pass), or with --held-back the steps counted by the host and the budget's hold on the server
    (curve_verdicts.held_back_outcomes), as CSV on stdout."""
    held_back = "--held-back" in argv
    folders = [a for a in argv if a != "--held-back"]
    if not folders:
        print("usage: python -m labanalysis.curve.curve [--held-back] <run folder> [<run folder> ...]", file=sys.stderr)
        return 2
    runs = [load_run(folder) for folder in folders]
    table = curve_verdicts.held_back_outcomes(per_step(runs)) if held_back else host_on_load_per_pass(runs)
    table.to_csv(sys.stdout, index=False, float_format="%.3f")
    return 0


def mean(frame: pd.DataFrame, column: str) -> float:
    return float(frame[column].dropna().mean()) if column in frame.columns and frame[column].notna().any() else math.nan


def step_rows(run: Run, server: ServerRun) -> list[dict]:
    """step_row of each of the pass's steps, in the order they ran: computed once for the pass as loaded, as the report's curve
    section, its verdict (perpass, through of_pass) and make advise each read them, and a pass's steps take seconds to read."""
    found = server.__dict__.get("_curve_step_rows")
    if found is None:
        found = [step_row(run, server, step) for step in steps(run, server)]
        server.__dict__["_curve_step_rows"] = found
    return found


def per_step(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass and curve step (COLUMNS), in the order the steps ran."""
    rows = []
    for run, server, base in repeats.each_pass(runs):
        rows += [{**base, **row} for row in step_rows(run, server)]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["server_busy_percent"] = 100 * frame["server_busy"]
    frame["load_busy_percent"] = 100 * frame["load_busy"]
    return frame


def of_pass(run: Run, server: ServerRun, base: dict) -> dict[str, dict[str, float]]:
    """One pass's curve figures by endpoint: {"highest_sustained_per_s": ..., "cpu_us_per_request": ..., "capacity_per_cpu": ...,
    "served_per_cpu": ..., "served_full_is_floor": ..., "fixed_cores": ...}; none without a curve.
    `base` is the pass's PASS_COLUMNS (repeats.each_pass)."""
    rows = pd.DataFrame([{**base, **row} for row in step_rows(run, server)], columns=COLUMNS)
    if rows.empty:
        return {}
    highest = highest_sustained(rows).set_index("endpoint")["highest_sustained_per_s"]
    slopes = cpu_slopes(rows).set_index("endpoint")
    return {
        e: {
            "highest_sustained_per_s": highest[e],
            "cpu_us_per_request": slopes.loc[e, "cpu_us_per_request"],
            "capacity_per_cpu": slopes.loc[e, "capacity_per_cpu"],
            "served_per_cpu": slopes.loc[e, "served_per_cpu"],
            "served_full_is_floor": bool(slopes.loc[e, "served_full_is_floor"]),
            "fixed_cores": slopes.loc[e, "fixed_cores"],
        }
        for e in highest.index
    }


def full_steps(per_step: pd.DataFrame) -> pd.DataFrame:
    """per_step's rows of the full step (wrk's closed loop); none from a run without one."""
    return per_step[per_step["closed_loop"].eq(True)] if "closed_loop" in per_step.columns else per_step.iloc[0:0]


def ladder_steps(per_step: pd.DataFrame) -> pd.DataFrame:
    """per_step's rows of the ladder's rates, every pass offered the same: without the searched steps (each pass searched at
    rates of its own) and the full step (a closed loop, at no rate)."""
    off_ladder = pd.Series(False, index=per_step.index)
    for flag in ("searched", "closed_loop"):
        if flag in per_step.columns:
            off_ladder |= per_step[flag].eq(True)
    return per_step[~off_ladder]


def across_passes(per_step: pd.DataFrame, figure: str) -> pd.DataFrame:
    """Per server, endpoint and offered rate of the ladder: `figure` (a FIGURES name) as the median across passes, low, high and
    passes, over the ladder's steps (ladder_steps)."""
    column, _ = FIGURES[figure]
    ladder = ladder_steps(per_step)
    return repeats.per_server(ladder.assign(value=ladder[column]), value="value", by=("endpoint", "offered_per_s"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
