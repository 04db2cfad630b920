"""What a curve's steps show: whether each step was sustained, and why not in a reader's words; which side's CPU ran
out; whether the step can be judged at all; each pass's highest sustained rate; and the server's CPU per request as the slope of its
CPU against the rate. The steps' figures are labanalysis.curve.curve's; this module holds the rules that judge them.

A step is sustained when nothing was dropped or failed and the p99 on the wire (the server's own time, without the generator's
delays; the generator's p99 where there is no wire capture) stayed under the profile's bound for the endpoint. vegeta's requests
go on a fixed pool of connections (the profile's curveConnections), and one that waits for a connection waits in vegeta, where the wire
cannot see it; but the profile holds the pool to at least the top rate times the bound (lab.bench.load.Profile), so a full pool
shows on the wire: with all N in flight, the wire's mean time is N over what the server answers (Little's law), over the bound at
any rate of the curve. vegeta's own p99 is not judged: it holds the load's CPU's delays too, many times the wire's over the same
second (docs/under-load.md, "How a step is judged").

A server's highest sustained rate in a pass is, as the lab defines it, the highest step it sustained, and a step below it that
failed is named beside the rate (`failed_below`), never dropped. Near a limit either way can be chance: one second's stall puts 1% of a step's
requests over the bound (docs/JOURNAL.md, "The third pair"), and a server whose CPU is already full can hold a step above one
it failed (docs/JOURNAL.md, "The fourth pair"). The rule before (the last step before the first failure) took the first kind for the limit; this one
takes the second for a step held. A step that failed for the load generator's sake, or the host's, alone is not judged, and
where no judged step above the highest failed, the rate is a lower bound.
"""

from __future__ import annotations

import math

import pandas as pd

from .. import stats
from ..bench import cpu
from ..folder import repeats

# How close to its open-files limit the server's count may come before it is taken as having reached it: /proc is read once a
# second, and a server that cannot accept reads a few under the limit between its attempts.
FILES_SLACK = 10

# Cores of the load's CPUs the host may take in a step (another program, or the hypervisor's steal) before a failed step in
# which the server still had CPU to give is put down to the host rather than to the server: over this, the host's other work
# moved the wire's p99 several times over, and under it lies what /proc's sampling leaves unexplained in a quiet run
# (docs/JOURNAL.md, "The second pair: finer steps, the sockets fitted, vegeta's collector off").
OTHERS_LIMIT_CORES = 0.1


# The share of a step's time a server's CPU budget may hold it back (its cgroup throttled it, cpu.csv's server_throttled_s) at which
# it had no more CPU to give, whatever it used on average: 0.4 of one CPU holds back a server that wants it all 0.6 of the time, and
# a server whose load comes in bursts (the load's CPUs delayed by the host) uses its budget early in a period and waits the rest
# out, under cpu.BUSY on average. On a quiet host, nearly every step held back this much failed (held_back_outcomes;
# docs/JOURNAL.md, "Held back by its budget").
THROTTLED_FULL = 0.4

NOT_JUDGED = "not judged: "
# Why the full step is never sustained: it offers no rate to hold, only as much as the server answers.
CLOSED_LOOP = "the full step: a closed loop, offered as fast as answered"
LOAD_RAN_OUT = "the load generator's CPU ran out, not the server's"


def judged(row: dict) -> dict:
    """Whether a step was sustained, why not in a reader's words, and which side's CPU ran out: the server's where it had no more to
    give (server_out_of_cpu), the load's where its CPUs were cpu.BUSY busy or more on average."""
    p99 = row["wire_p99_ms"] if row["judged_on"] == "wire" else row["load_p99_ms"]
    reasons = []
    if math.isnan(row["dropped"]):
        reasons.append("dropped iterations not known")
    elif row["dropped"] > 0:
        reasons.append(f"{row['dropped']:,.0f} dropped")
    if row["failed"] > 0:
        reasons.append(f"{row['failed']:,.0f} failed")
    if is_closed_loop(row):
        reasons.append(CLOSED_LOOP)
    elif not p99 < row["bound_ms"]:
        reasons.append(f"p99 {p99:,.1f} ms on the {row['judged_on']}, over {row['bound_ms']:g} ms")
    server_full, load_full = server_out_of_cpu(row), not math.isnan(row["load_busy"]) and row["load_busy"] >= cpu.BUSY
    ran_out = {(True, True): "both", (True, False): "server", (False, True): "load generator"}.get((server_full, load_full), "neither")
    # A server at its open-files limit cannot accept the step's connections, whatever its model: the limit is the host's, and the
    # idle sockets and the lab's own connections took the files. Not judged either way, whatever else happened in the step.
    files, limit = row.get("server_files_max", math.nan), row.get("files_limit", math.nan)
    if not math.isnan(files) and not math.isnan(limit) and files >= limit - FILES_SLACK:
        reasons.append(f"{NOT_JUDGED}the server reached its open-files limit ({files:,.0f} of {limit:,.0f})")
    # Another program on the load's CPUs, or the hypervisor taking them, delayed the requests there before the wire saw them (the
    # kernel delivers a loopback packet on the sender's CPU): a step that failed meanwhile, the server's CPU not full, measured the
    # host. One whose server had used its CPU failed for the server's sake: it had no more to give, whatever the load's CPUs lost.
    elif reasons and not server_full and host_on_load(row) > OTHERS_LIMIT_CORES:
        reasons.append(f"{NOT_JUDGED}{_host_on_load_words(row)}")
    # A step k6 stalled in, collecting its own heap, measured k6: had it failed, it says nothing of the server either way.
    elif reasons and row.get("k6_gc_ms", 0) > 0:
        reasons.append(f"{NOT_JUDGED}k6 collected its heap for {row['k6_gc_ms']:,.0f} ms in the step")
    # Nor does one in which the load's CPU ran out and the server's did not, and no request failed: the server was not offered the
    # step's rate on time, and the wire's times then hold the load's delays too (the kernel delivers a loopback packet on the
    # sender's CPU, so a request waits there before the server can read it). Its limit is past the step, by how much the curve
    # cannot say. A failed request is the server's answer, and is judged. So is a step the wire saw none of while it saw the pass's
    # others: nothing reached the server (vegeta, its CPU full, sent nothing).
    elif reasons and ran_out == "load generator" and row["failed"] == 0 and (row["judged_on"] == "wire" or row.get("wire_answered_per_s") == 0):
        reasons.append(f"{NOT_JUDGED}{LOAD_RAN_OUT} ({100 * row['load_busy']:.0f}% busy, the server {100 * row['server_busy']:.0f}%)")
    # A major GC cycle is the server's own cost, and the step counts all the same; a reader sees that it ran (labanalysis.bench.zgc).
    if reasons and row.get("server_gc_major_s", 0) > 0:
        reasons.append(f"a major GC cycle ran {row['server_gc_major_s']:.1f} s of the step")
    judged = not any(r.startswith(NOT_JUDGED) for r in reasons)
    return {"sustained": not reasons, "judged": judged, "why_not": "; ".join(reasons), "ran_out": ran_out}


def is_closed_loop(row: dict | pd.Series) -> bool:
    """Whether a step's row is the full step's closed loop; a row from before the full step (no `closed_loop`, or NaN) is not."""
    value = row.get("closed_loop", False)
    return bool(value) if pd.notna(value) else False


def server_out_of_cpu(row: dict) -> bool:
    """Whether the server had no more CPU to give in the step: it used cpu.BUSY of its budget (or of its CPUs) or more on average,
    or its budget held it back THROTTLED_FULL of the step's time or more."""
    busy, held_back = row["server_busy"], row.get("server_throttled_share", math.nan)
    return (not math.isnan(busy) and busy >= cpu.BUSY) or (not math.isnan(held_back) and held_back >= THROTTLED_FULL)


def host_on_load(row: dict) -> float:
    """The cores of the load's CPUs the host took in the step: other programs' and, where cpu.csv measured it, the hypervisor's."""
    steal = row.get("load_steal_cores", math.nan)
    return row.get("load_others_cores", math.nan) + (0.0 if math.isnan(steal) else steal)


def _host_on_load_words(row: dict) -> str:
    steal, others = row.get("load_steal_cores", math.nan), row["load_others_cores"]
    if math.isnan(steal):
        return f"another program, or the hypervisor, took {others:.2f} cores of the load's CPUs"
    return f"the host took {steal + others:.2f} cores of the load's CPUs (the hypervisor {steal:.2f}, other programs {others:.2f})"


def highest_sustained(per_step: pd.DataFrame) -> pd.DataFrame:
    """Per pass and endpoint: the highest sustained rate (0 where no step was), the first step above it not sustained, why, and
    which side ran out there, and the steps below it that failed (`failed_below`, "2,000/s: p99 ... ms"; empty if none). Steps not
    judged (k6 stalled in them, or only the load generator ran out) are passed over.

    Where no judged step above the highest failed, the curve did not reach the server's limit, and the rate is a lower bound:
    `lower_bound_because` says why (the curve's top held, or the steps above were not judged, and why the first was not). It is
    empty for a limit."""
    rows = []
    for (_folder, _pass, endpoint), group in per_step.groupby(["run folder", "pass", "endpoint"], sort=False):
        group = group.sort_values("offered_per_s")
        judged = group[group["judged"].astype(bool)]
        sustained = judged["sustained"].astype(bool)
        highest = float(judged.loc[sustained, "offered_per_s"].max()) if sustained.any() else 0.0
        failing = judged[~sustained]
        above, below = failing[failing["offered_per_s"] > highest], failing[failing["offered_per_s"] < highest]
        first = above.iloc[0] if len(above) else None
        rows.append(
            {
                **{c: group.iloc[0][c] for c in repeats.PASS_COLUMNS},
                "endpoint": endpoint,
                "highest_sustained_per_s": highest,
                "curve_top_per_s": float(group["offered_per_s"].max()),
                "first_not_sustained_per_s": float(first["offered_per_s"]) if first is not None else math.nan,
                "why_not": first["why_not"] if first is not None else "",
                "ran_out": first["ran_out"] if first is not None else "",
                "lower_bound_because": "" if first is not None else _unreached(group, highest),
                "failed_below": "; ".join(f"{r.offered_per_s:,.0f}/s: {r.why_not}" for r in below.itertuples()),
            }
        )
    return pd.DataFrame(rows)


def _unreached(steps: pd.DataFrame, highest: float) -> str:
    """Why a curve with no judged failure stops at `highest`: its top held, or the steps above it were not judged."""
    above = steps[steps["offered_per_s"] > highest]
    if above.empty:
        return f"the curve's top, {highest:,.0f}/s, held"
    first = above.iloc[0]
    return f"from {first['offered_per_s']:,.0f}/s on, {first['why_not'].split(NOT_JUDGED)[-1]}"


def cpu_slopes(per_step: pd.DataFrame) -> pd.DataFrame:
    """Per pass and endpoint: the server's CPU per request (µs), the slope of its CPU cores against the achieved rate fitted by least
    squares over the steps it sustained (stats.capacity_fit); the fit's intercept, the cores it spends serving nothing (the idle
    sockets' pings, GC, JIT, JFR); and its capacity per CPU, what its CPU in the steps (the budget, or its whole CPUs) serves once
    that fixed part is paid, per core. A step's own CPU over its rate would count the fixed part as the requests'; the slope leaves
    it out. NaN with fewer than two sustained steps.

    Beside it, the known truth the line is held to: what the server served a core of CPU where its CPU was full (`served_per_cpu`,
    served_when_full)."""
    rows = []
    for (_folder, _pass, endpoint), group in per_step.groupby(["run folder", "pass", "endpoint"], sort=False):
        held = group[group["sustained"].astype(bool)]
        fit = stats.capacity_fit(held["achieved_per_s"], held["server_cores"])
        cores = float(held["server_cpu_cores"].median()) if "server_cpu_cores" in held.columns and len(held) else math.nan
        rows.append(
            {
                **{c: group.iloc[0][c] for c in repeats.PASS_COLUMNS},
                "endpoint": endpoint,
                "cpu_us_per_request": fit.us_per_request,
                "fixed_cores": fit.fixed_cores,
                "capacity_per_cpu": fit.per_cpu(cores),
                "served_per_cpu": served_when_full(group),
                "served_full_is_floor": served_full_is_floor(group),
            }
        )
    return pd.DataFrame(rows)


# The share of a step's offered rate a server must answer for the step to count as served whole: vegeta's seconds at the step's
# edges leave a few requests to the next.
SERVED_WHOLE = 0.99


def served_a_core(steps: pd.DataFrame | pd.Series) -> pd.Series | float:
    """Requests a second per core the server used: a step's (a row) or each step's (a frame) achieved rate over its cores."""
    return steps["achieved_per_s"] / steps["server_cores"]


def judged_with_cpu(steps: pd.DataFrame) -> pd.DataFrame:
    """The judged steps in which the server used some CPU: those a capacity per CPU may be read from."""
    return steps[steps["judged"].astype(bool) & (steps["server_cores"] > 0)]


def filled_budget(steps: pd.DataFrame) -> pd.DataFrame:
    """The steps in which the server had no more CPU to give (server_out_of_cpu)."""
    return steps[pd.Series([server_out_of_cpu(row) for row in steps.to_dict("records")], index=steps.index, dtype=bool)]


def _most_served_a_core(steps: pd.DataFrame) -> pd.Series | None:
    """The judged step in which a core of the server served the most, where some judged step filled its CPU (server_out_of_cpu);
    None without one. Past its limit a server may serve less than at the step below, down to nothing: read at the step where
    its CPU filled, a server that filled it only where every request failed would read 0 (docs/JOURNAL.md, "The verdict pair,
    judged again")."""
    judged = judged_with_cpu(steps)
    if filled_budget(judged).empty:
        return None
    return judged.loc[served_a_core(judged).idxmax()]


def served_full_is_floor(steps: pd.DataFrame) -> bool:
    """Whether what served_when_full reads is only a floor under what a core of the server could serve: in its step the load's CPU
    ran out with the server's (the load may have held the server back), or the server answered (SERVED_WHOLE of) all it was
    offered and no judged step offered more (it kept up with the most it was offered). Where a step offered more and it answered
    fewer, or a step was offered past what it could serve, or a closed loop (the full step) offered all it would take, the
    figure is the most it served."""
    top = _most_served_a_core(steps)
    if top is None:
        return False
    if top["ran_out"] == "both":
        return True
    if is_closed_loop(top) or top["achieved_per_s"] < SERVED_WHOLE * top["offered_per_s"]:
        return False
    return not (steps["judged"].astype(bool) & (steps["offered_per_s"] > top["offered_per_s"])).any()


def served_when_full(steps: pd.DataFrame) -> float:
    """Requests a second per core the server used, in the judged step in which a core served the most, of a ladder that filled the
    server's CPU (server_out_of_cpu, in a judged step, sustained or not): what a core serves when the server has
    little or no more CPU to give, measured where the line's capacity is drawn. It is all-in, the fixed part paid, so a step
    short of full reads under what a full one would. NaN where no judged step filled the server's CPU."""
    top = _most_served_a_core(steps)
    return math.nan if top is None else float(served_a_core(top))


def held_back_outcomes(per_step: pd.DataFrame) -> pd.DataFrame:
    """Steps counted by what the host took of the load's CPUs (up to OTHERS_LIMIT_CORES, or more), whether the server's budget held
    it back THROTTLED_FULL of the time or more, and whether they held: the evidence for THROTTLED_FULL, where the host was quiet.
    Steps from before cpu.csv measured the budget's hold are left out."""
    rows = per_step[per_step["server_throttled_share"].notna()].to_dict("records")
    frame = pd.DataFrame(
        {
            "host": ["quiet" if host_on_load(r) <= OTHERS_LIMIT_CORES else "took the load's CPUs" for r in rows],
            "held back": [f"{THROTTLED_FULL:.0%} or more" if r["server_throttled_share"] >= THROTTLED_FULL else "less" for r in rows],
            "held": [bool(r["sustained"]) for r in rows],
        }
    )
    counts = frame.groupby(["host", "held back"])["held"].agg(sustained="sum", steps="count").reset_index()
    return counts.assign(failed=counts["steps"] - counts["sustained"])
