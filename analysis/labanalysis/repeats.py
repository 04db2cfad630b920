"""Where a figure was measured more than once (a profile with repeats, or several run folders): the median and the spread."""

from __future__ import annotations

import pandas as pd

from . import latency, memory
from .run import Run

MIB = 1 << 20


def measurements(runs: list[Run]) -> pd.DataFrame:
    """One row per server run in every run given: run folder, server, JFR streaming, and the repeated figures."""
    rows = []
    for run in runs:
        json_table = latency.endpoint_table(run, "json").set_index("run")
        for server in run.servers:
            rows.append(
                {
                    "run folder": run.folder.name,
                    "server run": server.name,
                    "server": server.server,
                    "JFR streaming": server.jfr_streaming,
                    "/json achieved (req/s)": json_table.loc[server.name, "requests_per_second"],
                    "/json p99 (ms)": json_table.loc[server.name, "p(99)"],
                    "RSS at the most sockets (MiB)": memory.rss_at_most(server) / MIB,
                }
            )
    return pd.DataFrame(rows)


def medians(runs: list[Run]) -> pd.DataFrame:
    """Per server and JFR setting with more than one measurement: how many, and each figure's median with its range.

    With a handful of repeats the honest interval is the range itself (lowest to highest); a
    confidence interval from two or three values would claim more than they can say.
    """
    data = measurements(runs)
    if data.empty:
        return pd.DataFrame()
    figures = ["/json achieved (req/s)", "/json p99 (ms)", "RSS at the most sockets (MiB)"]
    rows = []
    for (server, jfr), group in data.groupby(["server", "JFR streaming"], sort=False):
        if len(group) < 2:
            continue
        row = {"server": server, "JFR streaming": "with" if jfr else "without", "repeats": len(group)}
        for figure in figures:
            values = group[figure].dropna()
            row[figure] = f"{values.median():,.1f} ({values.min():,.1f} to {values.max():,.1f})" if len(values) else ""
        rows.append(row)
    return pd.DataFrame(rows)
