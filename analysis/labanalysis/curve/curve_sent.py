"""What the load generator sent in one of the curve's steps (labanalysis.curve.curve): its requests' timings by its own clock, those that
failed, and those it did not send on time. k6 tags each request with the phase it was sent in, and its dropped iterations are counted
by their timestamps over the step's whole seconds; vegeta's requests are those its attack for the step had due within it. So each
figure of a step counts that step alone, and an open model's shortfall counts as dropped whichever generator offered the step."""

from __future__ import annotations

import math

import pandas as pd

from ..bench import latency, vegeta_sent
from ..folder.run import ServerRun
from .curve_step import Step


def whole_seconds(server: ServerRun, step: Step) -> tuple[int, int] | None:
    """latency.whole_seconds of the step: the epoch seconds of k6's samples wholly inside it, [first, until); None without the
    load's start time. A step measured for L seconds has L - 1 of them where the load did not start on a whole second."""
    start_ms = server.outcome.load_start_epoch_ms
    return None if start_ms is None else latency.whole_seconds(start_ms, step.from_s, step.to_s)


def dropped(server: ServerRun, step: Step) -> float:
    """The iterations k6 could not start on time in the step's whole seconds (its endpoint's scenario runs every step); NaN where
    the step has no whole second, or the pass no samples."""
    window = whole_seconds(server, step)
    samples = server.k6_samples
    if window is None or samples.empty or window[1] <= window[0]:
        return math.nan
    rows = samples[(samples["metric_name"] == "dropped_iterations") & (samples["scenario"] == step.endpoint)]
    first, until = window
    return float(rows.loc[(rows["timestamp"] >= first) & (rows["timestamp"] < until), "metric_value"].sum())


def k6_figures(server: ServerRun, step: Step) -> dict:
    """What k6 sent in the step: its requests' timings (k6's own), the failed ones, the iterations it could not start on time, and
    those answered (k6 tags a request with the phase it was sent in)."""
    samples = server.k6_samples
    tagged = samples[samples["extra_tags"] == f"endpoint={step.phase}"] if not samples.empty else samples
    durations = tagged.loc[tagged["metric_name"] == "http_req_duration", "metric_value"].astype(float)
    failed = float(tagged.loc[tagged["metric_name"] == "http_req_failed", "metric_value"].sum())
    return {"sent": len(durations), "failed": failed, "dropped": dropped(server, step), "ms": durations, "answered": len(durations) - failed}


def vegeta_figures(server: ServerRun, step: Step) -> dict:
    """What vegeta sent for the step: vegeta_sent.sent over the step's seconds, its attack begun with its settling phase."""
    return vegeta_sent.sent(server, step.phase, step.rate_per_s, step.from_s, step.to_s, step.settle_from_s)


def wrk_figures(server: ServerRun, step: Step) -> dict:
    """What wrk's closed loop counted in the full step (closed-loop.csv): the answers from the measured phase's start to wrk's end,
    put over the step's seconds; those not 2xx or 3xx, and those timed out, failed. A closed loop sends as the answers come, so
    nothing is dropped. wrk keeps no request's time, only its p50 and p99 over the whole loop, settling included (`p50_ms`,
    `p99_ms` in place of `ms`). All NaN where the pass counted none."""
    counted = server.closed_loop
    rows = counted[counted["phase"] == step.phase] if not counted.empty else counted
    if rows.empty:
        nan = math.nan
        return {"sent": nan, "failed": nan, "dropped": nan, "ms": pd.Series(dtype=float), "answered": nan, "p50_ms": nan, "p99_ms": nan}
    row = rows.iloc[0]
    answered = float(row["answered"]) * step.seconds / float(row["counted_s"])
    failed = float(row["not_ok"] + row["timeouts"])
    return {
        "sent": answered + failed,
        "failed": failed,
        "dropped": 0.0,
        "ms": pd.Series(dtype=float),
        "answered": answered,
        "p50_ms": float(row["wrk_p50_ms"]),
        "p99_ms": float(row["wrk_p99_ms"]),
    }
