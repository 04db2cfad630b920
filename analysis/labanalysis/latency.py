"""Latency under load, from each server's k6 summary: percentiles, achieved rate, dropped iterations."""

from __future__ import annotations

import math

import pandas as pd

from .run import Run

PERCENTILES = ["p(50)", "p(90)", "p(99)", "p(99.9)", "max"]


def endpoint_table(run: Run, endpoint: str) -> pd.DataFrame:
    """One row per server run: its latency percentiles (ms), achieved rate, dropped iterations and failed checks.

    `endpoint` is `json` or `dashboard`. The rate is requests over the phase's declared length,
    the one the manifest records the run used.
    """
    profile = run.manifest["profile"]
    seconds = profile["jsonSeconds"] if endpoint == "json" else profile["dashboardSeconds"]
    rows = []
    for server in run.servers:
        metrics = server.k6_metrics
        trend = metrics.get(f"http_req_duration{{endpoint:{endpoint}}}", {}).get("values", {})
        count = metrics.get(f"http_reqs{{endpoint:{endpoint}}}", {}).get("values", {}).get("count", math.nan)
        dropped = metrics.get(f"dropped_iterations{{scenario:{endpoint}}}", {}).get("values", {}).get("count", 0 if metrics else math.nan)
        row = {"run": server.name, "server": server.server, "status": server.outcome.get("status")}
        row.update({name: trend.get(name, math.nan) for name in PERCENTILES})
        row["requests_per_second"] = count / seconds if seconds else math.nan
        row["dropped_iterations"] = dropped
        row["failed_checks"] = metrics.get("checks", {}).get("values", {}).get("fails", math.nan)
        rows.append(row)
    return pd.DataFrame(rows)
