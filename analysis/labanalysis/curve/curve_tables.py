"""The curve for a reader: per server and endpoint, the highest sustained rate and the CPU per request across passes, and any step
figure as a table of servers by offered rate. The figures are labanalysis.curve.curve's, the verdicts labanalysis.curve.curve_verdicts'."""

from __future__ import annotations

import pandas as pd

from .. import stats
from ..folder import repeats
from ..stats.numbers import shown
from .curve import across_passes, full_steps, ladder_steps
from .curve_verdicts import cpu_slopes, highest_sustained, served_a_core


def summary(per_step: pd.DataFrame) -> pd.DataFrame:
    """Per server and endpoint, for a reader: the highest sustained rate, the CPU per request and the fixed part (the line of CPU
    against rate), the capacity per CPU (what a core served with the server's CPU full, curve_verdicts.served_when_full) and the
    line's (stats.capacity), each `median [low, high] over N passes`, and, from the pass with the median highest rate, the first step
    above it not sustained, why, which side ran out, and the steps below it that failed."""
    highest, slopes = highest_sustained(per_step), cpu_slopes(per_step)
    rows = []
    for (server, label, endpoint), group in highest.groupby(["server", "label", "endpoint"], sort=False):
        rate = stats.across(group["highest_sustained_per_s"])
        fits = slopes[(slopes["server"] == server) & (slopes["endpoint"] == endpoint)]
        slope, fixed, capacity, served = (stats.across(fits[c]) for c in ("cpu_us_per_request", "fixed_cores", "capacity_per_cpu", "served_per_cpu"))
        middle = group.sort_values("highest_sustained_per_s").iloc[(len(group) - 1) // 2]
        rows.append(
            {
                "server": label,
                "endpoint": f"/{endpoint}",
                # No judged step failed: the server's limit is above the rate, which is all the curve can say.
                "highest sustained (req/s)": f"≥ {shown(rate)}: {middle['lower_bound_because']}" if middle["lower_bound_because"] else shown(rate),
                "server CPU per request (µs, slope)": shown(slope),
                "fixed part (cores, intercept)": shown(fixed),
                # The compared capacity: what a core served where the server's CPU was full (perpass.JSON_CAPACITY says why).
                "capacity per CPU: served a core with its CPU full (req/s)": shown(served) + _floors(fits),
                # Beside it the line's, which carries the low steps' CPU per request to the top.
                "the line's capacity per CPU (req/s a core)": shown(capacity),
                "first step not sustained (median pass)": "" if not middle["why_not"] else f"{middle['first_not_sustained_per_s']:,.0f}/s",
                "why": middle["why_not"],
                "CPU full there": middle["ran_out"],
                # Steps the pass failed below its highest: a stall, or chance near a full CPU (curve_verdicts says which the data showed).
                "steps below it that failed (median pass)": middle.get("failed_below", ""),
            }
        )
    return pd.DataFrame(rows)


def _floors(fits: pd.DataFrame) -> str:
    """Where some pass's figure is only a floor (served_full_is_floor: its fullest step answered all it was offered, or the load's
    CPU ran out with the server's there), how many."""
    floors = int(fits["served_full_is_floor"].astype(bool).sum()) if "served_full_is_floor" in fits.columns else 0
    return f"; a floor in {floors} of {len(fits)}: the step answered all it was offered, or the load's CPU ran out too" if floors else ""


def table(per_step: pd.DataFrame, endpoint: str, figure: str) -> pd.DataFrame:
    """Server down, offered rate across: `figure` as `median [lowest, highest] over N passes`."""
    values = across_passes(per_step, figure)
    values = values[values["endpoint"] == endpoint]
    if values.empty:
        return pd.DataFrame()
    values = values.assign(text=[shown(stats.Across(r.median, r.low, r.high, r.passes)) for r in values.itertuples()])
    wide = values.pivot_table(index="label", columns="offered_per_s", values="text", aggfunc="first", sort=False)
    # Rates in order whatever pass offered them first: a pass that rested a step puts the steps above it first.
    wide = wide[sorted(wide.columns)]
    wide.columns = [f"{c:,.0f}/s" for c in wide.columns]
    wide.index.name = None
    return wide


def full_step(per_step: pd.DataFrame) -> pd.DataFrame:
    """Per server and endpoint with a full step: what a core served there and in the ladder's step that served the most a core, the
    load's CPU busy in each (%), wrk's own cores, and in how many passes each side's CPU ran out in the full step, each
    `median [low, high] over N passes`: whether the closed loop found more than the ladder could send, and on whose CPU. Empty
    without a full step."""
    closed = full_steps(per_step)
    if closed.empty:
        return pd.DataFrame()
    ladder = ladder_steps(per_step)
    ladder = ladder[ladder["server_cores"] > 0]
    rows = []
    for (label, endpoint), full in closed.groupby(["label", "endpoint"], sort=False):
        steps = ladder[(ladder["label"] == label) & (ladder["endpoint"] == endpoint)]
        most = steps.loc[served_a_core(steps).groupby(steps["pass"]).idxmax()] if not steps.empty else steps
        ran_out = full["ran_out"].value_counts()
        rows.append(
            {
                "server": label,
                "endpoint": f"/{endpoint}",
                "full step: served a core (req/s)": shown(stats.across(served_a_core(full))),
                "the ladder's most a core (req/s)": shown(stats.across(served_a_core(most))) if not most.empty else "",
                "load CPU busy, full step (%)": shown(stats.across(100 * full["load_busy"])),
                "load CPU busy, that ladder step (%)": shown(stats.across(100 * most["load_busy"])) if not most.empty else "",
                "wrk (cores)": shown(stats.across(full["wrk_cores"])),
                "CPU full in the full step (passes)": ", ".join(f"{side} {n}" for side, n in ran_out.items()),
            }
        )
    return pd.DataFrame(rows)


# The server's own JVM threads whose CPU each step counts apart (curve.step_row): (column, name).
JVM_THREADS = (("server_jit_cores", "JIT compilers"), ("server_gc_cores", "collector"), ("server_vm_cores", "VM thread"))


def jvm_shares(per_step: pd.DataFrame) -> pd.DataFrame:
    """Per server and endpoint: the share of the server's CPU over the ladder's steps that its JIT compilers, its collector and its
    VM thread took (%), each `median [low, high] over N passes`: what of the CPU a capacity is read from went to the JVM's own
    work, the requests' barriers and stacks aside. A thread kind no step measured (a run from before its column) is left out;
    empty where none was."""
    measured = [(column, name) for column, name in JVM_THREADS if column in per_step.columns and per_step[column].notna().any()]
    if not measured or per_step.empty:
        return pd.DataFrame()
    rows = []
    for (label, endpoint), ladder in per_step.groupby(["label", "endpoint"], sort=False):
        row = {"server": label, "endpoint": f"/{endpoint}"}
        for column, name in measured:
            shares = [
                100 * steps[column].sum(min_count=1) / steps["server_cores"].sum()
                for _, steps in ladder.groupby("pass", sort=False)
                if steps["server_cores"].sum() > 0
            ]
            row[f"{name} (% of the server's CPU)"] = shown(stats.across(shares))
        rows.append(row)
    return pd.DataFrame(rows)


# The curve's per-pass figures a reader compares for how well they repeat: (column of highest_sustained or cpu_slopes, name).
SPREAD_FIGURES = (
    ("highest_sustained_per_s", "highest sustained"),
    ("served_per_cpu", "capacity per CPU"),
    ("capacity_per_cpu", "the line's capacity per CPU"),
    ("cpu_us_per_request", "CPU per request"),
)


def spread(per_step: pd.DataFrame) -> pd.DataFrame:
    """Per server and endpoint: how far each of SPREAD_FIGURES moved from pass to pass, as its highest pass over its lowest (1.00x:
    every pass alike), so that a reader sees which estimator of a server's capacity repeats on this host. Empty cells: fewer than two
    passes measured it."""
    per_pass = highest_sustained(per_step).merge(cpu_slopes(per_step), on=[*repeats.PASS_COLUMNS, "endpoint"], how="outer", validate="one_to_one")
    rows = []
    for (label, endpoint), group in per_pass.groupby(["label", "endpoint"], sort=False):
        row = {"server": label, "endpoint": f"/{endpoint}"}
        for column, name in SPREAD_FIGURES:
            value = stats.across(group[column][group[column] > 0])
            row[f"{name}: highest pass over lowest"] = f"{value.high / value.low:.2f}x" if value.has_interval else ""
        rows.append(row)
    return pd.DataFrame(rows)
