"""The table the report opens with: for each figure, which server wins and by how much."""

from __future__ import annotations

import math

import pandas as pd

from . import latency, memory, pinning
from .run import Run

MIB = 1 << 20


def figures(run: Run) -> pd.DataFrame:
    """One row per server run (JFR streaming, first repeat: the comparable ones), one column per headline figure."""
    json_table = latency.endpoint_table(run, "json").set_index("run")
    pins = pinning.summary(run).set_index("run")
    rows = []
    for server in run.servers:
        if not server.outcome.get("jfrStreaming", True) or server.outcome.get("repeat", 1) > 1:
            continue
        points = memory.plateaus(server)
        fit = memory.per_connection(points, "rss_bytes")
        rows.append(
            {
                "server": server.name,
                "RSS per idle socket (KiB)": fit.slope / 1024,
                "RSS at the most sockets (MiB)": points["rss_bytes"].iloc[-1] / MIB if not points.empty else math.nan,
                "/json p99 (ms)": json_table.loc[server.name, "p(99)"],
                "/json p99.9 (ms)": json_table.loc[server.name, "p(99.9)"],
                "peak threads": server.outcome.get("peakThreads", math.nan),
                "pinned events": pins.loc[server.name, "events"],
            }
        )
    return pd.DataFrame(rows).set_index("server") if rows else pd.DataFrame()


def winners(table: pd.DataFrame) -> pd.DataFrame:
    """For each figure (lower is better for all of them): the best server, its value, the runner-up, and how many times better."""
    rows = []
    for figure in table.columns:
        values = table[figure].dropna().sort_values()
        if len(values) < 2:
            continue
        best, second = values.index[0], values.index[1]
        ratio = values.iloc[1] / values.iloc[0] if values.iloc[0] > 0 else math.inf if values.iloc[1] > 0 else 1.0
        rows.append(
            {
                "figure": figure,
                "best": best,
                "value": values.iloc[0],
                "runner-up": second,
                "runner-up value": values.iloc[1],
                "times better": ratio,
            }
        )
    return pd.DataFrame(rows)
