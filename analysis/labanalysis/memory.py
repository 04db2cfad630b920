"""Memory per idle connection: where memory settles at each socket step, and the line through those plateaus."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from scipy import stats

from .run import ServerRun

STEP_PREFIX = "sockets-step-"

# The plateau of a step is the last third of its hold: the sockets open in the first half and
# memory settles after them (the harness checks that it did, in outcome.json's steps).
PLATEAU_FRACTION = 1 / 3


def plateaus(server: ServerRun) -> pd.DataFrame:
    """One row per socket step: step, open_sockets, and the mean RSS, PSS and JFR heap used over its plateau."""
    proc = server.proc
    if proc.empty:
        return pd.DataFrame(columns=["step", "open_sockets", "rss_bytes", "pss_bytes", "heap_used_bytes"])
    heap = server.jfr[server.jfr["metric"] == "heap_used_bytes"] if not server.jfr.empty else pd.DataFrame()
    rows = []
    for phase, samples in proc[proc["phase"].str.startswith(STEP_PREFIX)].groupby("phase"):
        start, end = samples["time_s"].min(), samples["time_s"].max()
        since = end - (end - start) * PLATEAU_FRACTION
        plateau = samples[samples["time_s"] >= since]
        heap_plateau = heap[(heap["phase"] == phase) & (heap["time_s"] >= since)]["value"] if not heap.empty else pd.Series(dtype=float)
        step_load = server.load[server.load["phase"] == phase]
        rows.append(
            {
                "step": int(phase.removeprefix(STEP_PREFIX)),
                "open_sockets": int(step_load["sockets_opened_total"].max()) if not step_load.empty else 0,
                "rss_bytes": plateau["rss_bytes"].mean(),
                "pss_bytes": plateau["pss_bytes"].mean(),
                "heap_used_bytes": heap_plateau.mean() if not heap_plateau.empty else math.nan,
            }
        )
    return pd.DataFrame(rows).sort_values("step").reset_index(drop=True)


@dataclass(frozen=True)
class LineFit:
    """Bytes per connection (the slope, with its 95% interval) and memory at rest (the intercept)."""

    slope: float
    slope_low: float
    slope_high: float
    intercept: float
    r_squared: float
    points: int

    def at(self, sockets: float) -> float:
        return self.intercept + self.slope * sockets


def per_connection(points: pd.DataFrame, column: str) -> LineFit:
    """Least squares of `column` against open_sockets over the plateaus.

    The interval is the slope's 95% confidence interval from Student's t with n - 2 degrees of
    freedom: wide with five steps, and undefined (NaN) with two, which is honest about how much
    a handful of plateaus can say.
    """
    data = points[["open_sockets", column]].dropna()
    n = len(data)
    if n < 2 or data["open_sockets"].nunique() < 2:
        return LineFit(math.nan, math.nan, math.nan, math.nan, math.nan, n)
    fit = stats.linregress(data["open_sockets"], data[column])
    half_width = stats.t.ppf(0.975, n - 2) * fit.stderr if n > 2 else math.nan
    return LineFit(
        slope=fit.slope,
        slope_low=fit.slope - half_width,
        slope_high=fit.slope + half_width,
        intercept=fit.intercept,
        r_squared=fit.rvalue**2,
        points=n,
    )
