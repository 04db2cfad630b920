"""Latency under load: each server's percentiles from k6's summary, and per second from k6's raw samples."""

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
    warm-up `json-warmup`). The rate is requests over the phase's declared length.
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
        row["requests_per_second"] = count / seconds if seconds else math.nan
        row["dropped_iterations"] = _dropped(server, endpoint, known)
        row["failed_requests"] = failed
        rows.append(row)
    return pd.DataFrame(rows)


def _dropped(server: ServerRun, endpoint: str, known: bool) -> float:
    # The harness counts /json's drops in the steady phase only (the warm-up ramp shares the
    # scenario); k6's summary has the scenario's total, warm-up included.
    if endpoint == "json" and "jsonDroppedIterations" in server.outcome:
        return server.outcome["jsonDroppedIterations"]
    return server.k6_metrics.get(f"dropped_iterations{{scenario:{endpoint}}}", {}).get("values", {}).get("count", 0 if known else math.nan)


def durations(server: ServerRun, endpoint: str) -> pd.Series:
    """Every request's duration (ms) that k6 tagged `endpoint`, from its raw samples."""
    samples = server.k6_samples
    rows = samples[(samples["metric_name"] == "http_req_duration") & (samples["extra_tags"] == f"endpoint={endpoint}")]
    return rows["metric_value"].reset_index(drop=True)


def percentile_interval(values: pd.Series, q: float, seed: int = 1) -> tuple[float, float, float]:
    """The q-th percentile (0-100) of `values` and its 95% bootstrap interval (nearest-rank on each resample).

    The interval says how much the percentile would move if the same load ran again with the same
    latency distribution; it does not cover the run-to-run drift of a shared host (repeats do).
    """
    data = np.asarray(values, dtype=float)
    if len(data) == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    # One resample at a time: all at once would hold RESAMPLES copies of a local run's 150,000 samples.
    resampled = [np.percentile(rng.choice(data, size=len(data), replace=True), q, method="inverted_cdf") for _ in range(RESAMPLES)]
    low, high = np.percentile(resampled, [2.5, 97.5])
    return float(np.percentile(data, q, method="inverted_cdf")), float(low), float(high)


def per_second(server: ServerRun, endpoint: str) -> pd.DataFrame:
    """Per second of k6's run: second (since k6's first sample), requests, p50_ms, p99_ms, sockets_opened (cumulative)."""
    samples = server.k6_samples
    columns = ["second", "requests", "p50_ms", "p99_ms", "sockets_opened"]
    if samples.empty:
        return pd.DataFrame(columns=columns)
    start = samples["timestamp"].min()
    rows = samples[(samples["metric_name"] == "http_req_duration") & (samples["extra_tags"] == f"endpoint={endpoint}")]
    by_second = rows.groupby(rows["timestamp"] - start)["metric_value"]
    latency = pd.DataFrame({"requests": by_second.size(), "p50_ms": by_second.median(), "p99_ms": by_second.quantile(0.99)})
    opened = samples[samples["metric_name"] == "lab_sockets_opened"]
    sockets = opened.groupby(opened["timestamp"] - start)["metric_value"].sum().cumsum().rename("sockets_opened")
    seconds = pd.RangeIndex(0, int(samples["timestamp"].max() - start) + 1, name="second")
    frame = latency.reindex(seconds).join(sockets.reindex(seconds).ffill().fillna(0))
    frame["requests"] = frame["requests"].fillna(0).astype(int)
    return frame.reset_index()[columns]
