"""The concurrency sweep (`make sweep`, a `results/<time>-sweep/` folder): what each model buys with requests in flight.

wrk holds C requests in flight on a server (a closed loop), each waiting D ms: on `/delay` the model itself waits,
on `/dashboard` two downstream calls do. The harness writes what each measured step counted (`sweep.csv`) and the
server's memory taken apart with the requests in flight (`memory.csv`); this module computes every figure from them:

- throughput, answers a second: wrk's answers over the counted part of its window (from when every connection has
  had an answer);
- Little's law: with C in flight each waiting D, throughput is C/D until something gives; `little` is throughput over
  C/D, so 1.0 is a server that adds nothing to the wait;
- server CPU per request: the server's CPU time over the window, over its requests (mostly the JVM's background at a
  low rate), and as the slope of CPU use against throughput over the steps a server held (cpu_per_request);
- where that CPU went: the same, split by the server's thread families (cpu_by_thread_family);
- which side saturated: the server's CPU set or the load's (wrk and the stub) busy for SATURATED_SHARE of the window;
- memory per request in flight: labanalysis.sweep.sweepmemory; reading the folder: labanalysis.folder.sweepfolder.

A compared figure is the median across passes with the range across them (stats.across).
"""

from __future__ import annotations

import math

import pandas as pd

from .. import stats
from ..folder import catalogue
from ..folder.sweepfolder import SweepRun
from ..stats.numbers import shown

SWEEP_SUFFIX = "-sweep"
# A CPU set busy for this share of a step's window had no more to give: the side that ran out.
SATURATED_SHARE = 0.9
# A step holds Little's law while its throughput is at least this share of C/D and it answered nearly every request well.
LITTLE_HELD = 0.9
ERRORS_HELD = 0.01
DOWNSTREAM_CONNECTIONS = "downstream connections a call"
# The figures per step, by the name the report gives them: (per_step's column, lower is better).
FIGURES = {
    "throughput (/s)": ("throughput_per_s", False),
    "Little's law (throughput / (C/D))": ("little", False),
    "latency p50 (ms)": ("latency_ms_p50", True),
    "latency p99 (ms)": ("latency_ms_p99", True),
    "latency max (ms)": ("latency_ms_max", True),
    "answers not 200 or lost (%)": ("error_percent", True),
    "server CPU per request (µs)": ("server_cpu_us_per_request", True),
    "server CPU busy (%)": ("server_busy_percent", True),
    "of which the JIT compilers (% of a CPU)": ("server_jit_busy_percent", True),
    "load CPU busy (%)": ("load_busy_percent", True),
    "threads (peak)": ("threads_peak", True),
    DOWNSTREAM_CONNECTIONS: ("stub_connections_per_call", True),
}


def statuses(text) -> dict[str, int]:
    """sweep.csv's statuses column (`200=3506;502=10`) as {status: answers}; none for a blank."""
    if not isinstance(text, str) or not text:
        return {}
    return {status: int(count) for status, count in (part.split("=") for part in text.split(";"))}


def saturated(server_busy: float, load_busy: float) -> str:
    """Which side of a step had no CPU left: the server's set, the load's (wrk and the stub), both, or neither."""
    server_full = not math.isnan(server_busy) and server_busy >= SATURATED_SHARE
    load_full = not math.isnan(load_busy) and load_busy >= SATURATED_SHARE
    return {(True, True): "both", (True, False): "server", (False, True): "load"}.get((server_full, load_full), "neither")


def per_step(run_or_steps) -> pd.DataFrame:
    """sweep.csv with every figure of FIGURES per pass and step, and `saturated`, `errors` and `answers_200`."""
    steps = run_or_steps.steps if isinstance(run_or_steps, SweepRun) else run_or_steps
    out = steps.copy()
    # The rate over the counted window only: wrk's first requests are spread over one delay, and the window starts once every
    # connection has had an answer (loadtests/wrk/closed-loop.lua says why a count over the whole run would be short).
    out["throughput_per_s"] = out["answered_in_window"] / (out["duration_us"] / 1e6 - out["window_from_ms"] / 1e3)
    out["little"] = out["throughput_per_s"] / (out["concurrency"] * 1000 / out["delay_ms"])
    for p in ("p50", "p99", "max"):
        out[f"latency_ms_{p}"] = out[f"latency_us_{p}"] / 1000
    out["answers_200"] = [statuses(s).get("200", 0) for s in out["statuses"]]
    # Every request wrk made or lost that was not a 200: other statuses, and socket errors and timeouts (no answer at all).
    lost = out["errors_connect"] + out["errors_read"] + out["errors_write"] + out["errors_timeout"]
    out["errors"] = (out["requests"] - out["answers_200"]) + lost
    out["error_percent"] = 100 * out["errors"] / (out["requests"] + lost).where(lambda n: n > 0)
    out["server_cpu_us_per_request"] = 1e6 * out["server_cpu_s"] / out["requests"].where(lambda n: n > 0)
    # The JIT compilers' share of a CPU in the window: a server still compiling its path pays for it in every figure of CPU.
    out["server_jit_busy_percent"] = 100 * out["server_jit_cpu_s"] / (out["duration_us"] / 1e6)
    # The stub's count: 1 where the server's client opened a connection for each call, near 0 where it kept them.
    out["stub_connections_per_call"] = out["stub_connections"] / out["stub_calls"].where(lambda n: n > 0)
    out["server_busy_percent"] = 100 * out["server_cpus_busy"]
    out["load_busy_percent"] = 100 * out["load_cpus_busy"]
    out["saturated"] = [saturated(s, lo) for s, lo in zip(out["server_cpus_busy"], out["load_cpus_busy"], strict=True)]
    return out


def across_passes(run: SweepRun, figure: str) -> pd.DataFrame:
    """One row per server, workload and concurrency: `figure` (a FIGURES name) as the median across passes, low, high, passes."""
    column, _ = FIGURES[figure]
    steps = per_step(run)
    rows = []
    for (server, workload, concurrency), group in steps.groupby(["server", "workload", "concurrency"], sort=True):
        value = stats.across(group[column])
        rows.append(
            {
                "server": server,
                "workload": workload,
                "concurrency": concurrency,
                "median": value.median,
                "low": value.low,
                "high": value.high,
                "passes": value.passes,
            }
        )
    return server_order(pd.DataFrame(rows, columns=["server", "workload", "concurrency", "median", "low", "high", "passes"]))


def table(run: SweepRun, workload: str, figure: str) -> pd.DataFrame:
    """Server down, requests in flight across: `figure` as `median [lowest, highest] over N passes`."""
    values = across_passes(run, figure)
    values = values[values["workload"] == workload]
    if values.empty:
        return pd.DataFrame()
    return wide_by_concurrency(values.assign(text=[shown(stats.Across(r.median, r.low, r.high, r.passes)) for r in values.itertuples()]))


def measured(run: SweepRun, workload: str, figure: str) -> bool:
    """Whether any step of `workload` has `figure` (a run made before the harness wrote its column has none)."""
    steps = per_step(run)
    return bool(steps.loc[steps["workload"] == workload, FIGURES[figure][0]].notna().any())


def wide_by_concurrency(values: pd.DataFrame) -> pd.DataFrame:
    """`values`' text column with its servers down (by their labels, in the catalogue's order) and its concurrencies across."""
    wide = server_order(values).pivot_table(index="server", columns="concurrency", values="text", aggfunc="first", sort=False)
    wide.columns = [f"C={c:,}" for c in wide.columns]
    wide.index = [catalogue.label(s) for s in wide.index]
    return wide


def capacity(run: SweepRun) -> pd.DataFrame:
    """Per server and workload: the most requests in flight it held in every pass (throughput at least LITTLE_HELD of C/D, fewer
    than ERRORS_HELD of requests failed), the first step it did not hold and why, from the median pass."""
    steps = per_step(run)
    rows = []
    for (server, workload), group in steps.groupby(["server", "workload"], sort=False):
        held_c, broke = None, None
        for concurrency, at in group.groupby("concurrency", sort=True):
            holds = (at["little"] >= LITTLE_HELD) & (at["error_percent"].fillna(100) < 100 * ERRORS_HELD)
            if holds.all():
                held_c = concurrency
                continue
            broke = (concurrency, why_not_held(at[~holds]))
            break
        rows.append(
            {
                "server": server,
                "workload": workload,
                "held up to C": held_c,
                "first C not held": broke[0] if broke else None,
                "why": broke[1] if broke else "held at every step swept",
            }
        )
    # Whole counts, and none where a server held every step: not a float's 100.0.
    counts = {"held up to C": "Int64", "first C not held": "Int64"}
    return server_order(pd.DataFrame(rows, columns=["server", "workload", "held up to C", "first C not held", "why"]).astype(counts))


def cpu_per_request(run: SweepRun) -> pd.DataFrame:
    """Per server and workload: the server's CPU per request, its JIT compilers' left out, as the slope of its CPU use (CPU-seconds a second) against
    throughput, fitted by least squares in each pass over the steps it held (LITTLE_HELD; stats.capacity_fit, the curve's fit),
    then the median and range across passes. At a low rate a step's own CPU per request is mostly the JVM's background (GC, the
    JIT, timers) divided by few requests; the slope leaves that fixed part out. NaN where a pass held fewer than two steps."""
    steps = per_step(run)
    # The JIT compilers' CPU is left out, as the curve's fit leaves it out (cpu.py): a path still compiling at the first C and
    # quiet at the last would tilt the line down, to a third of the request's cost (docs/JOURNAL.md, "Where the engines'
    # /dashboard CPU goes, in the sweep").
    steps = steps.assign(cpu_per_s=(steps["server_cpu_s"] - steps["server_jit_cpu_s"]) / (steps["duration_us"] / 1e6))
    rows = []
    for (server, workload), group in steps.groupby(["server", "workload"], sort=False):
        slopes = []
        for _, one in group[group["little"] >= LITTLE_HELD].groupby("pass"):
            slopes.append(stats.capacity_fit(one["throughput_per_s"], one["cpu_per_s"]).us_per_request)
        value = stats.across(slopes)
        rows.append(
            {"server": server, "workload": workload, "µs per request": value.median, "low": value.low, "high": value.high, "passes": value.passes}
        )
    return server_order(pd.DataFrame(rows, columns=["server", "workload", "µs per request", "low", "high", "passes"]))


# The part of a step's server CPU no family of threads.csv holds: what its threads that ended in the window used.
ENDED = "(threads that ended in the window)"


def cpu_by_thread_family(run: SweepRun) -> pd.DataFrame:
    """Per server, workload, concurrency and thread family (threads.csv): the family's CPU per request (µs, over wrk's requests,
    as server CPU per request is), the median across passes with low, high and passes, and its share of the server's CPU per
    request (the medians'). The process's CPU its families do not hold is ENDED's. Empty for a folder from before threads.csv."""
    columns = ["server", "workload", "concurrency", "family", "µs per request", "low", "high", "passes", "share"]
    if run.threads.empty:
        return pd.DataFrame(columns=columns)
    keys = ["pass", "server", "workload", "concurrency"]
    steps = run.steps.set_index(keys)
    families = run.threads.pivot_table(index=keys, columns="thread_family", values="cpu_s", aggfunc="sum", fill_value=0.0)
    families = families.reindex(steps.index, fill_value=0.0)
    families[ENDED] = (steps["server_cpu_s"] - families.sum(axis=1)).clip(lower=0.0)
    per_request = 1e6 * families.div(steps["requests"].where(steps["requests"] > 0), axis=0)
    per_request.columns.name = "family"
    long = per_request.stack().rename("us").reset_index()
    rows = []
    for (server, workload, concurrency, family), group in long.groupby(["server", "workload", "concurrency", "family"], sort=False):
        value = stats.across(group["us"])
        rows.append([server, workload, concurrency, family, value.median, value.low, value.high, value.passes])
    # A family none of a server's passes had (the other engine's threads) is no row of that server's.
    out = pd.DataFrame(rows, columns=columns[:-1])
    # One pass has no range: its own figure says whether the family used anything.
    out = out[out["high"].fillna(out["µs per request"]) > 0]
    whole = out.groupby(["server", "workload", "concurrency"])["µs per request"].transform("sum")
    return server_order(out.assign(share=out["µs per request"] / whole.where(whole > 0)))


# The thread families a table of where a server's CPU went names, the largest first; the rest are summed as one.
FAMILIES_NAMED = 7
OTHER_FAMILIES = "other families"


def named_families(values: pd.DataFrame) -> list[str]:
    """The FAMILIES_NAMED largest families of cpu_by_thread_family's rows, by their share summed over the rows' steps."""
    return values.groupby("family")["share"].sum().nlargest(FAMILIES_NAMED).index.tolist()


def thread_family_table(run: SweepRun, workload: str) -> pd.DataFrame:
    """Server and C down, the workload's FAMILIES_NAMED largest thread families across (by their share summed over its steps),
    the rest summed as OTHER_FAMILIES: each family's CPU per request (µs) as `median [lowest, highest] over N passes`."""
    values = cpu_by_thread_family(run)
    values = values[values["workload"] == workload]
    if values.empty:
        return pd.DataFrame()
    return named_across(values, "family", named_families(values), OTHER_FAMILIES)


def named_across(values: pd.DataFrame, key: str, named: list[str], rest: str) -> pd.DataFrame:
    """Server and C down, the `named` values of column `key` across, each `µs per request` row as `median [lowest, highest] over
    N passes`, and the other keys' medians summed under `rest`: a wide table of where a step's CPU went."""
    rows = []
    for (server, concurrency), group in values.groupby(["server", "concurrency"], sort=False):
        row = {"server": catalogue.label(server), "C": f"{concurrency:,}"}
        for name in named:
            found = group[group[key] == name]
            one = found.iloc[0] if len(found) else None
            row[name] = "" if one is None else shown(stats.Across(one["µs per request"], one["low"], one["high"], int(one["passes"])))
        other = group[~group[key].isin(named)]["µs per request"].sum()
        row[rest] = f"{other:,.0f}" if other else ""
        rows.append(row)
    return pd.DataFrame(rows)


def why_not_held(failed: pd.DataFrame) -> str:
    """A step's failing passes in a reader's words: how short of C/D, the errors by status, and which CPU was full."""
    row = failed.sort_values("little").iloc[len(failed) // 2]
    parts = [f"{row['little']:.0%} of C/D"]
    other = {s: n for s, n in statuses(row["statuses"]).items() if s != "200"}
    if other:
        parts.append("answers " + ", ".join(f"{n:,} of {s}" for s, n in sorted(other.items())))
    if row["errors_timeout"]:
        parts.append(f"{row['errors_timeout']:,} unanswered within wrk's timeout")
    socket = row["errors_connect"] + row["errors_read"] + row["errors_write"]
    if socket:
        parts.append(f"{socket:,} socket errors")
    parts.append(
        {"server": "the server's CPU full", "load": "the load's CPU full", "both": "both CPU sets full"}.get(row["saturated"], "no CPU full")
    )
    parts.append(f"{row['threads_peak']:,} threads")
    return f"{len(failed)} of its passes: " + "; ".join(parts)


def facts(run: SweepRun) -> dict[str, str]:
    """What ran, for the report's table of runs."""
    m = run.manifest
    s = m.settings
    split = m.cpu_split
    return {
        "command": m.provenance.command,
        "status": m.provenance.status,
        "server JDK": m.server_jdk.version,
        "JVM flags": " ".join(m.jvm_flags),
        "CPUs": f"server {list(split.server_cpus)}, load (wrk, stub, harness) {list(split.load_cpus)}" if split else "shared",
        "load generator": f"{m.wrk}, one thread, a closed loop; gives a request up after {s.wrk_timeout_seconds} s",
        "workloads": ", ".join(s.workloads),
        "each request waits (D)": f"{s.delay_ms:,} ms",
        "requests in flight (C)": ", ".join(f"{c:,}" for c in s.concurrencies),
        "highest C each workload may reach": ", ".join(f"{w} {c:,}" for w, c in m.highest_concurrency.items()),
        "what bounds it": f"{s.open_files_limit_source}: {s.open_files_limit:,}",
        "a step": f"{s.warmup_seconds} s warm-up at its C (memory taken apart then), {s.seconds} s measured",
        "passes": f"{s.passes}, interleaved (each pass runs every server, starting with the next)",
    }


def server_order(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame`'s rows with its servers in the catalogue's order, then by workload and concurrency."""
    if frame.empty:
        return frame
    order = catalogue.order(list(frame["server"]))
    return (
        frame.assign(_rank=frame["server"].map(order.index))
        .sort_values(["_rank", *[c for c in ("workload", "concurrency") if c in frame.columns]])
        .drop(columns="_rank")
        .reset_index(drop=True)
    )
