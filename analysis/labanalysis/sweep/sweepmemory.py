"""Memory per request in flight in a concurrency sweep (`make sweep`'s memory.csv), computed once here.

The harness takes the server's memory apart by the bench's snapshot method at rest (concurrency 0) and in each step's
warm-up, with the step's requests in flight. A component's cost per request is its bytes at the step, less the same
JVM's at rest (each server meets each workload in a JVM of its own), over the requests the server itself counted in
flight: the mean of its count before and just after the snapshot's full GC.
"""

from __future__ import annotations

import pandas as pd

from .. import stats
from ..folder.sweepfolder import SweepRun
from ..stats.numbers import shown
from .sweep import wide_by_concurrency

# A snapshot counts only when the server's own count of requests in flight stayed within this share of C.
IN_FLIGHT_TOLERANCE = 0.1
# The components the report shows, by the name it gives them: memory.csv's component for each.
MEASURES = {"live heap": "live_heap", "NMT thread committed": "nmt_thread", "RSS": "rss", "kernel": "kernel"}
COLUMNS = ["pass", "server", "workload", "concurrency", "measure", "bytes_per_request", "in_flight"]


def per_in_flight(run: SweepRun) -> pd.DataFrame:
    """Per pass, server, workload, concurrency and MEASURES component: bytes per request in flight against the same JVM at
    rest. A snapshot whose in-flight count moved more than IN_FLIGHT_TOLERANCE of C is left out."""
    memory = run.memory
    if memory.empty:
        return pd.DataFrame(columns=COLUMNS)
    rest = memory[memory["concurrency"] == 0][["pass", "server", "workload", "component", "bytes"]].rename(columns={"bytes": "rest_bytes"})
    loaded = memory[memory["concurrency"] > 0].merge(rest, on=["pass", "server", "workload", "component"])
    moved = loaded[["in_flight_before", "in_flight_after"]].sub(loaded["concurrency"], axis=0).abs().max(axis=1)
    loaded = loaded[moved <= IN_FLIGHT_TOLERANCE * loaded["concurrency"]]
    loaded = loaded.assign(
        in_flight=(loaded["in_flight_before"] + loaded["in_flight_after"]) / 2,
        measure=loaded["component"].map({component: measure for measure, component in MEASURES.items()}),
    )
    loaded = loaded.assign(bytes_per_request=(loaded["bytes"] - loaded["rest_bytes"]) / loaded["in_flight"]).dropna(subset=["measure"])
    return loaded[COLUMNS].reset_index(drop=True)


def table(run: SweepRun, workload: str, measure: str) -> pd.DataFrame:
    """Server down, requests in flight across: `measure` in KiB per request in flight, median [range] across passes."""
    per = per_in_flight(run)
    per = per[(per["workload"] == workload) & (per["measure"] == measure)]
    if per.empty:
        return pd.DataFrame()
    rows = [
        {"server": server, "concurrency": concurrency, "text": shown(stats.across(group["bytes_per_request"] / 1024))}
        for (server, concurrency), group in per.groupby(["server", "concurrency"], sort=True)
    ]
    return wide_by_concurrency(pd.DataFrame(rows))
