"""The server's ZGC cycles, from its JFR series (jfr-series.csv's `gc_major_cycle_s` and `gc_minor_cycle_s`: each cycle's length in
seconds, at its start, on the pass's clock; a major cycle of ZGC's warm-up rule also as `gc_major_warmup_cycle_s`;
lab.bench.collect.JfrCollector).

ZGC collects concurrently, on the server's own CPU: under a CPU budget a major cycle ("Allocation Rate") runs for seconds, its
pauses stay under a millisecond, and what a step it overlaps loses is CPU, which the pause figures never show. Such a step fails more
often than one no cycle ran through (docs/under-load.md, "What moves a pass's limit"; the figures are in docs/JOURNAL.md). So a step
says how much of it a major cycle ran in, beside its verdict: the cycle is the server's own cost of what it allocated, and counts
against it, but a reader should see when a step failed with one.
"""

from __future__ import annotations

import math

import pandas as pd

from ..folder import repeats
from ..folder.bench_manifest import ZGC
from ..folder.run import Run, ServerRun
from ..stats.numbers import number
from .latency import percentile

MAJOR = "gc_major_cycle_s"
# The major cycles of ZGC's warm-up rule, also in MAJOR: three, as the heap in use first passes 10%, 20% and 30% of its soft maximum.
# When the third falls depends on how fast the server's heap fills, so it can land in one server's measured phase and not another's
# (docs/JOURNAL.md, "The steady phase's major cycles are ZGC's warm-up rule"). Runs made before the series named them have none.
WARMUP = "gc_major_warmup_cycle_s"


def cycles(server: ServerRun, metric: str = MAJOR) -> pd.DataFrame:
    """The pass's cycles of one kind: from_s and to_s on the pass's clock. Empty where the series has none."""
    jfr = server.jfr
    if jfr.empty:
        return pd.DataFrame(columns=["from_s", "to_s"])
    found = jfr[jfr["metric"] == metric]
    return pd.DataFrame({"from_s": found["time_s"].astype(float), "to_s": found["time_s"].astype(float) + found["value"].astype(float)})


def overlap_s(found: pd.DataFrame, start: float, end: float) -> float:
    """The seconds of the cycles in `found` (as `cycles` gives them) that lie between `start` and `end`."""
    return float((found["to_s"].clip(upper=end) - found["from_s"].clip(lower=start)).clip(lower=0).sum())


def major_seconds_within(server: ServerRun, seconds: pd.DataFrame) -> float:
    """How many seconds of major cycles overlap `seconds` (a step's rows of cpu.csv, each the second up to its time_s). NaN without
    the step's seconds, or for a pass whose series has no cycle at all (none can be said to overlap)."""
    jfr = server.jfr
    if seconds.empty or jfr.empty or not jfr["metric"].isin([MAJOR, "gc_minor_cycle_s"]).any():
        return math.nan
    return overlap_s(cycles(server), float(seconds["time_s"].min()) - 1, float(seconds["time_s"].max()))


def wire_during_major(wire: pd.DataFrame, found: pd.DataFrame) -> dict[str, float]:
    """The wire's requests (`time_s`, the arrival on the pass's clock, and `ms`) split by whether they arrived while a major cycle
    (`found`, as `cycles` gives them) ran: the seconds of cycle within the requests' span, the share of requests that arrived in
    one (%), and the p99 (ms) of those that did and of those that did not. NaN for a side with no request."""
    times = wire["time_s"].to_numpy(dtype=float)
    during = pd.Series(False, index=wire.index)
    for start, end in zip(found["from_s"], found["to_s"], strict=True):
        during |= (times >= start) & (times < end)
    first, last = (float(times.min()), float(times.max())) if len(times) else (math.nan, math.nan)
    ms = wire["ms"].astype(float)
    return {
        "major_s": overlap_s(found, first, last),
        "during_percent": 100 * float(during.mean()) if len(times) else math.nan,
        "p99_during_ms": percentile(ms[during], 99),
        "p99_outside_ms": percentile(ms[~during], 99),
        "p99_ms": percentile(ms, 99),
    }


def warmup_seconds_within(server: ServerRun, wire: pd.DataFrame) -> float:
    """How many seconds of ZGC's warm-up cycles overlap the span of the wire's requests (`time_s`, on the pass's clock). NaN for a
    pass whose series names no warm-up cycle at all, where none can be told from one not recorded: a run made before the series
    named them, a pass whose stream began after all three, or one whose heap never passed a tenth of its soft maximum."""
    jfr = server.jfr
    if wire.empty or jfr.empty or not (jfr["metric"] == WARMUP).any():
        return math.nan
    times = wire["time_s"].astype(float)
    return overlap_s(cycles(server, WARMUP), float(times.min()), float(times.max()))


def stalls_table(runs: list[Run], endpoint: str = "json") -> pd.DataFrame:
    """One row a compared pass: how much of `endpoint`'s steady phase a major cycle ran in, how much of that was ZGC's warm-up,
    and the wire's p99 inside and outside the cycles, so that a reader sees whether a pass's p99 is the model's or the collector's,
    and whether the collector's was its steady cost or its warm-up. Passes with no wire or no cycle series are left out, and so
    are those of a run on another collector, which has no ZGC cycle to show."""
    rows = []
    for run, server, base in repeats.each_pass(runs):
        if run.collector != ZGC:
            continue
        wire = server.wire
        if wire.empty or server.jfr.empty:
            continue
        steady = server.wire_in(endpoint)
        steady = steady[steady["endpoint"] == endpoint]
        if steady.empty:
            continue
        found = wire_during_major(steady, cycles(server))
        rows.append(
            {
                "server": base["label"],
                "pass": base["pass"],
                "major cycle in the phase (s)": round(found["major_s"], 1),
                "of it ZGC's warm-up (s)": round(warmup_seconds_within(server, steady), 1),
                "requests during one (%)": round(found["during_percent"], 1),
                "p99 during one (ms)": number(found["p99_during_ms"]),
                "p99 outside them (ms)": number(found["p99_outside_ms"]),
                "p99 of the phase (ms)": number(found["p99_ms"]),
            }
        )
    return pd.DataFrame(rows)
