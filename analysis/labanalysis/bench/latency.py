"""Latency under load: each server's percentiles from k6's summary, and per second from k6's raw samples.

Every percentile the analysis computes is `percentile`, k6's own rule, so a figure computed here
from k6's raw samples is the figure k6's summary gives for the same samples (a test holds it to that).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..folder import repeats
from ..folder.run import Run, ServerRun
from . import vegeta_sent

PERCENTILES = ["p(50)", "p(90)", "p(99)", "p(99.9)", "max"]

# Bootstrap resamples for a percentile's interval: enough for a stable 95% interval of a p99,
# and a second or two for a local pass's tens of thousands of requests.
RESAMPLES = 200
# The block a percentile's bootstrap resamples whole: one second of requests (k6 stamps each sample with its whole second).
# Slow requests come in bursts (a GC, a stall, a saturated load generator) that last a good part of a second or more; drawn
# one request at a time, a resample spreads a burst's requests over the whole phase as if each were slow on its own, and the
# interval comes out as narrow as if the tail were smooth. Whole seconds keep each burst together.
BLOCK_SECONDS = 1


def endpoint_table(run: Run, endpoint: str) -> pd.DataFrame:
    """One row per server run: latency percentiles (ms), achieved rate, dropped iterations, failed requests.

    `endpoint` is `json` or `dashboard`. For /json these count the steady phase only (k6 tags the
    warm-up `json-warmup`). The achieved rate is the requests that did not fail over the phase's
    declared length, and the dropped iterations are `dropped_iterations`'s: one definition each.
    Where vegeta offered the steady phase (the profile's jsonGenerator), each is vegeta's, counted
    by vegeta_sent's rule, the rule of the curve's steps.
    """
    profile = run.manifest.profile
    seconds = profile.json_seconds if endpoint == "json" else profile.dashboard_seconds
    by_vegeta = vegeta_sent.steady_phase(run, endpoint)
    rows = []
    for server in run.servers:
        row = {"run": server.name, "server": server.server, "status": server.outcome.status}
        if by_vegeta is not None:
            offered = vegeta_sent.steady(server, by_vegeta)
            row.update({name: _vegeta_percentile(offered["ms"], name) for name in PERCENTILES})
            count, failed, dropped = offered["sent"], offered["failed"], offered["dropped"]
        else:
            metrics = server.k6_metrics
            known = bool(metrics)
            trend = metrics.get(f"http_req_duration{{endpoint:{endpoint}}}", {}).get("values", {})
            count = metrics.get(f"http_reqs{{endpoint:{endpoint}}}", {}).get("values", {}).get("count", 0 if known else math.nan)
            failed = metrics.get(f"http_req_failed{{endpoint:{endpoint}}}", {}).get("values", {}).get("passes", 0 if known else math.nan)
            row.update({name: trend.get(name, math.nan) for name in PERCENTILES})
            dropped = dropped_iterations(server, endpoint, steady_until(run, server, endpoint))
        row["requests"] = count
        # What the server served of the rate: answers that were not failures, over the phase's declared length.
        row["requests_per_second"] = (count - failed) / seconds if seconds else math.nan
        row["dropped_iterations"] = dropped
        row["failed_requests"] = failed
        rows.append(row)
    return pd.DataFrame(rows)


def _vegeta_percentile(ms: pd.Series, name: str) -> float:
    """One of PERCENTILES (`p(99)`, `max`) of vegeta's timings, by k6's rule, so the column means what k6's summary's does."""
    if name == "max":
        return float(ms.max()) if len(ms) else math.nan
    return percentile(ms, float(name.removeprefix("p(").removesuffix(")")))


def dropped_iterations(server: ServerRun, scenario: str, until: int | None = None) -> float:
    """Iterations k6 could not start on time in `scenario` (json, dashboard or pin_traps), from its raw samples.

    For json, and for dashboard where the harness recorded its warm-up's end, only those of the steady
    phase: stamped at or after its first whole second (`jsonSteadyFromEpochSecond`,
    `dashboardSteadyFromEpochSecond`); the warm-up ramp is the same k6 scenario, and its last second is
    partly ramp. Where the scenario goes on past the steady phase (to the latency-throughput curve's
    steps), `until` is the second after the phase's last whole one (`phase_window`). The harness's
    calibration counts by the same rule (K6Load.droppedIterations); a shared fixture holds the two to
    one answer. A pass that never reached json's steady phase (no `jsonSteadyFromEpochSecond`) has no count: NaN.
    """
    since = None
    if scenario in ("json", "dashboard"):
        since = server.outcome.steady_from_epoch_second(scenario)
        if since is None and scenario == "json":
            return math.nan
    samples = server.k6_samples
    if samples.empty:
        return math.nan
    rows = samples[(samples["metric_name"] == "dropped_iterations") & (samples["scenario"] == scenario)]
    if since is not None:
        rows = rows[rows["timestamp"] >= since]
    if until is not None:
        rows = rows[rows["timestamp"] < until]
    return float(rows["metric_value"].sum())


def whole_seconds(load_start_ms: float, from_s: float, to_s: float) -> tuple[int, int]:
    """The epoch seconds k6 stamps samples with that lie wholly inside [from_s, to_s) seconds of load: [first, until). k6 stamps a
    sample with its whole second, so the seconds a phase starts and ends in are partly another phase's."""
    return int(-(-(load_start_ms + from_s * 1000) // 1000)), int((load_start_ms + to_s * 1000) // 1000)


def phase_window(run: Run, server: ServerRun, phase: str) -> tuple[int, int] | None:
    """`whole_seconds` of the phase named `phase` in the run's timeline (the manifest's, LoadTimeline); None for a phase the
    timeline does not have, or a pass with no load start."""
    start_ms = server.outcome.load_start_epoch_ms
    found = next((p for p in run.timeline if p.name == phase), None)
    if start_ms is None or found is None:
        return None
    return whole_seconds(start_ms, found.from_seconds, found.to_seconds)


def steady_until(run: Run, server: ServerRun, endpoint: str) -> int | None:
    """Where the steady phase of `endpoint` ends, for dropped_iterations, where its scenario goes on to the curve; None otherwise."""
    window = phase_window(run, server, endpoint)
    goes_on = any(p.name.startswith(f"{endpoint}-to-") for p in run.timeline)
    return window[1] if window is not None and goes_on else None


def durations(server: ServerRun, endpoint: str) -> pd.Series:
    """Every request's duration (ms) of `endpoint`'s steady phase (`timed_durations`)."""
    return timed_durations(server, endpoint)["duration_ms"]


def timed_durations(server: ServerRun, endpoint: str) -> pd.DataFrame:
    """Every request of `endpoint`'s steady phase, by the load generator that sent it: timestamp (whole epoch seconds) and
    duration_ms. k6's requests tagged `endpoint`, from its raw samples; or, where vegeta offered the phase (its attack named for
    the endpoint, the profile's jsonGenerator), vegeta's (vegeta_sent.timings)."""
    by_vegeta = vegeta_sent.timings(server, endpoint)
    if not by_vegeta.empty:
        return by_vegeta
    samples = server.k6_samples
    rows = samples[(samples["metric_name"] == "http_req_duration") & (samples["extra_tags"] == f"endpoint={endpoint}")]
    return pd.DataFrame({"timestamp": rows["timestamp"].to_numpy(), "duration_ms": rows["metric_value"].to_numpy(dtype=float)})


def wire_durations(server: ServerRun, endpoint: str) -> pd.Series:
    """Every request to `endpoint` in its steady phase (the phase of the same name), as the wire timed it (ms): from the request's
    arrival on the server's host to the first segment of the answer, without the load generator's own delays (wire.csv)."""
    return wire_timed(server, endpoint)["duration_ms"]


def wire_timed(server: ServerRun, endpoint: str) -> pd.DataFrame:
    """`wire_durations` with the whole second of load each request arrived in (timestamp), as `percentile_interval` takes them."""
    wire = server.wire_in(endpoint)
    rows = wire[wire["endpoint"] == endpoint]
    return pd.DataFrame({"timestamp": rows["time_s"].astype(float).astype(np.int64).to_numpy(), "duration_ms": rows["ms"].astype(float).to_numpy()})


def percentile(values, q: float) -> float:
    """The q-th percentile (0-100) of `values` by k6's rule (grafana/k6 metrics/sink.go, TrendSink.P, v1.8.1).

    Over the sorted values x, with i = q/100 * (n - 1): x[floor(i)] + (x[ceil(i)] - x[floor(i)]) * (i - floor(i)),
    a linear step between the two closest ranks (numpy's method="linear"). An empty sample has none (NaN; k6 says 0).
    """
    data = np.asarray(values, dtype=float)
    return math.nan if len(data) == 0 else float(np.percentile(data, q, method="linear"))


def percentile_interval(timed: pd.DataFrame, q: float, seed: int = 1) -> tuple[float, float, float]:
    """The q-th percentile (0-100) of one pass's requests (`timed_durations`) and its 95% interval within that pass, by a block
    bootstrap over seconds: each resample draws as many whole seconds as the pass had, with replacement, and takes `percentile` of
    all their requests (see BLOCK_SECONDS for why whole seconds).

    The interval says how precisely this pass measured its percentile. It is not the figure's uncertainty: another pass on the
    same host may differ by more, which only the spread across passes shows (repeats).
    """
    if timed.empty:
        return math.nan, math.nan, math.nan
    ordered = timed.sort_values("timestamp", kind="stable")
    values = ordered["duration_ms"].to_numpy(dtype=float)
    block = (ordered["timestamp"].to_numpy() // BLOCK_SECONDS).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
    ends = np.r_[starts[1:], len(values)]
    rng = np.random.default_rng(seed)
    resampled = []
    for _ in range(RESAMPLES):
        chosen = rng.integers(0, len(starts), size=len(starts))
        resampled.append(percentile(np.concatenate([values[starts[i] : ends[i]] for i in chosen]), q))
    return percentile(values, q), percentile(resampled, 2.5), percentile(resampled, 97.5)


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


def within_pass_table(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass: /json p50 and p99 and /dashboard p99 (ms, k6's rule over its raw samples), each p99 with its 95%
    interval within the pass (`percentile_interval`'s block bootstrap over seconds), and /json's p99 on the wire (`wire_durations`), with
    its own."""
    rows = []
    for _, server, base in repeats.each_pass(runs):
        row = {"server": base["label"], "pass": base["pass"]}
        json_samples = timed_durations(server, "json")
        row["/json p50 (ms)"] = percentile(json_samples["duration_ms"], 50)
        for endpoint, samples in (("json", json_samples), ("dashboard", timed_durations(server, "dashboard"))):
            p99, low, high = percentile_interval(samples, 99)
            row[f"/{endpoint} p99 (ms)"] = p99
            row[f"/{endpoint} p99, within this pass (95%)"] = f"{low:,.2f} to {high:,.2f}" if not math.isnan(low) else ""
        p99, low, high = percentile_interval(wire_timed(server, "json"), 99)
        row["/json p99 on the wire (ms)"] = p99
        # The interval the verdict reads: two servers whose passes' intervals overlap in a round are not ordered by it.
        row["/json p99 on the wire, within this pass (95%)"] = f"{low:,.2f} to {high:,.2f}" if not math.isnan(low) else ""
        rows.append(row)
    return pd.DataFrame(rows)
