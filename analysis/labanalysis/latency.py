"""Latency under load: each server's percentiles from k6's summary, and per second from k6's raw samples.

Every percentile the analysis computes is `percentile`, k6's own rule, so a figure computed here
from k6's raw samples is the figure k6's summary gives for the same samples (a test holds it to that).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .run import Run, ServerRun

PERCENTILES = ["p(50)", "p(90)", "p(99)", "p(99.9)", "max"]

# Bootstrap resamples for a percentile's interval: enough for a stable 95% interval of a p99
# over tens of thousands of requests, and a second or two for a local run's 150,000.
RESAMPLES = 200


def endpoint_table(run: Run, endpoint: str) -> pd.DataFrame:
    """One row per server run: latency percentiles (ms), achieved rate, dropped iterations, failed requests.

    `endpoint` is `json` or `dashboard`. For /json these count the steady phase only (k6 tags the
    warm-up `json-warmup`). The achieved rate is the requests that did not fail over the phase's
    declared length, and the dropped iterations are `dropped_iterations`'s: one definition each.
    """
    profile = run.manifest.get("profile", {})
    seconds = profile.get("jsonSeconds" if endpoint == "json" else "dashboardSeconds", 0)
    rows = []
    for server in run.servers:
        metrics = server.k6_metrics
        known = bool(metrics)
        trend = metrics.get(f"http_req_duration{{endpoint:{endpoint}}}", {}).get("values", {})
        count = metrics.get(f"http_reqs{{endpoint:{endpoint}}}", {}).get("values", {}).get("count", 0 if known else math.nan)
        failed = metrics.get(f"http_req_failed{{endpoint:{endpoint}}}", {}).get("values", {}).get("passes", 0 if known else math.nan)
        row = {"run": server.name, "server": server.server, "status": server.outcome.get("status")}
        row.update({name: trend.get(name, math.nan) for name in PERCENTILES})
        row["requests"] = count
        # What the server served of the rate: answers that were not failures, over the phase's declared length.
        row["requests_per_second"] = (count - failed) / seconds if seconds else math.nan
        row["dropped_iterations"] = dropped_iterations(server, endpoint)
        row["failed_requests"] = failed
        rows.append(row)
    return pd.DataFrame(rows)


def dropped_iterations(server: ServerRun, scenario: str) -> float:
    """Iterations k6 could not start on time in `scenario` (json, dashboard or pin_traps), from its raw samples.

    For json, only those of the steady phase: stamped at or after its first whole second, which
    the harness records (`jsonSteadyFromEpochSecond`); the warm-up ramp is the same k6 scenario,
    and its last second is partly ramp. The harness's calibration counts by the same rule
    (K6Load.droppedIterations); a shared fixture holds the two to one answer. A run from before
    the harness recorded that second has the harness's own count instead.
    """
    since = None
    if scenario == "json":
        since = server.outcome.get("jsonSteadyFromEpochSecond")
        if since is None:
            return server.outcome.get("jsonDroppedIterations", math.nan)
    samples = server.k6_samples
    if samples.empty:
        return math.nan
    rows = samples[(samples["metric_name"] == "dropped_iterations") & (samples["scenario"] == scenario)]
    if since is not None:
        rows = rows[rows["timestamp"] >= since]
    return float(rows["metric_value"].sum())


def durations(server: ServerRun, endpoint: str) -> pd.Series:
    """Every request's duration (ms) that k6 tagged `endpoint`, from its raw samples."""
    samples = server.k6_samples
    rows = samples[(samples["metric_name"] == "http_req_duration") & (samples["extra_tags"] == f"endpoint={endpoint}")]
    return rows["metric_value"].reset_index(drop=True)


def percentile(values, q: float) -> float:
    """The q-th percentile (0-100) of `values` by k6's rule (grafana/k6 metrics/sink.go, TrendSink.P, v1.8.1).

    Over the sorted values x, with i = q/100 * (n - 1): x[floor(i)] + (x[ceil(i)] - x[floor(i)]) * (i - floor(i)),
    a linear step between the two closest ranks (numpy's method="linear"). An empty sample has none (NaN; k6 says 0).
    """
    data = np.asarray(values, dtype=float)
    return math.nan if len(data) == 0 else float(np.percentile(data, q, method="linear"))


def percentile_interval(values: pd.Series, q: float, seed: int = 1) -> tuple[float, float, float]:
    """The q-th percentile (0-100) of `values` and its 95% bootstrap interval (`percentile` on each resample).

    The interval says how much the percentile would move if the same load ran again with the same
    latency distribution; it does not cover the run-to-run drift of a shared host (repeats do).
    """
    data = np.asarray(values, dtype=float)
    if len(data) == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    # One resample at a time: all at once would hold RESAMPLES copies of a local run's 150,000 samples.
    resampled = [percentile(rng.choice(data, size=len(data), replace=True), q) for _ in range(RESAMPLES)]
    return percentile(data, q), percentile(resampled, 2.5), percentile(resampled, 97.5)


def per_second(server: ServerRun, endpoint: str) -> pd.DataFrame:
    """Per second of k6's run: second (since k6's first sample), requests, p50_ms, p99_ms, sockets_opened (cumulative)."""
    samples = server.k6_samples
    columns = ["second", "requests", "p50_ms", "p99_ms", "sockets_opened"]
    if samples.empty:
        return pd.DataFrame(columns=columns)
    start = samples["timestamp"].min()
    rows = samples[(samples["metric_name"] == "http_req_duration") & (samples["extra_tags"] == f"endpoint={endpoint}")]
    by_second = rows.groupby(rows["timestamp"] - start)["metric_value"]
    latency = pd.DataFrame(
        {"requests": by_second.size(), "p50_ms": by_second.agg(lambda v: percentile(v, 50)), "p99_ms": by_second.agg(lambda v: percentile(v, 99))}
    )
    opened = samples[samples["metric_name"] == "lab_sockets_opened"]
    sockets = opened.groupby(opened["timestamp"] - start)["metric_value"].sum().cumsum().rename("sockets_opened")
    seconds = pd.RangeIndex(0, int(samples["timestamp"].max() - start) + 1, name="second")
    frame = latency.reindex(seconds).join(sockets.reindex(seconds).ffill().fillna(0))
    frame["requests"] = frame["requests"].fillna(0).astype(int)
    return frame.reset_index()[columns]
