"""The server's ZGC cycles, from its JFR series (jfr-series.csv's `gc_major_cycle_s` and `gc_minor_cycle_s`: each cycle's length in
seconds, at its start, on the pass's clock; lab.bench.collect.JfrCollector).

ZGC collects concurrently, on the server's own CPU. A major cycle ("Allocation Rate") took 3.4-16.5 s on 0.4 of a CPU in the curve's
passes, and its pauses were under a millisecond: what a step overlapped by one lost was CPU, which the pause figures never show. Of the
steps a major cycle overlapped, 24 of 35 failed; of the others, 126 of 349 (docs/JOURNAL.md,
"What moves a pass's limit"). With the longer warm-ups after, a major cycle overlapped 13 of each run's 271 steps, and 1 of the
48 first failed steps above a limit (docs/JOURNAL.md). So a step says how much of it a major cycle ran in,
beside its verdict: the cycle is the server's own cost of what it allocated, and counts against it, but a reader should see when a
step failed with one.
"""

from __future__ import annotations

import math

import pandas as pd

from .run import ServerRun

MAJOR = "gc_major_cycle_s"


def cycles(server: ServerRun, metric: str = MAJOR) -> pd.DataFrame:
    """The pass's cycles of one kind: from_s and to_s on the pass's clock. Empty where the series has none."""
    jfr = server.jfr
    if jfr.empty:
        return pd.DataFrame(columns=["from_s", "to_s"])
    found = jfr[jfr["metric"] == metric]
    return pd.DataFrame({"from_s": found["time_s"].astype(float), "to_s": found["time_s"].astype(float) + found["value"].astype(float)})


def major_seconds_within(server: ServerRun, seconds: pd.DataFrame) -> float:
    """How many seconds of major cycles overlap `seconds` (a step's rows of cpu.csv, each the second up to its time_s). NaN without
    the step's seconds, or for a pass whose series has no cycle at all (none can be said to overlap)."""
    jfr = server.jfr
    if seconds.empty or jfr.empty or not jfr["metric"].isin([MAJOR, "gc_minor_cycle_s"]).any():
        return math.nan
    found = cycles(server)
    start, end = float(seconds["time_s"].min()) - 1, float(seconds["time_s"].max())
    overlap = (found["to_s"].clip(upper=end) - found["from_s"].clip(lower=start)).clip(lower=0)
    return float(overlap.sum())
