"""Memory per idle connection: where memory settles at each socket step, and the line through those plateaus."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from scipy import stats

from .run import Run, ServerRun

STEP_PREFIX = "sockets-step-"

# The plateau of a step is the last third of its samples (taken once a second), so of its hold:
# the sockets open in the first half and memory settles after them. Counted in samples, not
# seconds, so that a sample a few ms early is not left out of a short step's plateau.
PLATEAU_FRACTION = 1 / 3
# A step has settled when its RSS moved less than this, first sample to last, over its plateau.
# One that has not is no plateau: its mean depends on when the step ended, so it is shown,
# marked, and left out of every line (a longer hold, stepHoldSeconds, lets it settle).
SETTLED_DRIFT_PERCENT = 2.0
PROC_COLUMNS = ["rss_bytes", "pss_bytes", "threads", "fds", "maps"]
PLATEAU_COLUMNS = ["step", "open_sockets", *PROC_COLUMNS, "heap_used_bytes", "rss_drift_percent", "settled", "why"]


def plateaus(server: ServerRun) -> pd.DataFrame:
    """One row per socket step: step, open_sockets, the means over its plateau of RSS, PSS, JFR's heap used, threads, fds and maps,
    and whether it settled: rss_drift_percent over the plateau, settled, and why not (empty when it did).

    This is the one place a plateau is computed; every line through plateaus (`per_connection`) leaves out those that did not settle.
    """
    proc = server.proc
    if proc.empty:
        return pd.DataFrame(columns=PLATEAU_COLUMNS)
    heap = server.jfr[server.jfr["metric"] == "heap_used_bytes"] if not server.jfr.empty else pd.DataFrame()
    rows = []
    for phase, samples in proc[proc["phase"].str.startswith(STEP_PREFIX)].groupby("phase"):
        plateau = samples.sort_values("time_s").tail(math.ceil(len(samples) * PLATEAU_FRACTION))
        since = plateau["time_s"].min()
        heap_plateau = heap[(heap["phase"] == phase) & (heap["time_s"] >= since)]["value"] if not heap.empty else pd.Series(dtype=float)
        step_load = server.load[server.load["phase"] == phase]
        rss = plateau["rss_bytes"]
        drift = 100 * (rss.iloc[-1] - rss.iloc[0]) / rss.iloc[0] if len(rss) and rss.iloc[0] else math.nan
        settled = bool(abs(drift) < SETTLED_DRIFT_PERCENT)
        rows.append(
            {
                "step": int(phase.removeprefix(STEP_PREFIX)),
                "open_sockets": int(step_load["sockets_opened_total"].max()) if not step_load.empty else 0,
                **{column: plateau[column].mean() for column in PROC_COLUMNS},
                "heap_used_bytes": heap_plateau.mean() if not heap_plateau.empty else math.nan,
                "rss_drift_percent": drift,
                "settled": settled,
                "why": "" if settled else f"RSS still moving {drift:+.1f}% over the step's last third (limit {SETTLED_DRIFT_PERCENT:g}%)",
            }
        )
    return pd.DataFrame(rows).sort_values("step").reset_index(drop=True)


def rss_at_most(server: ServerRun) -> float:
    """RSS (bytes) at the last step's plateau, the most sockets the run held; NaN when that step did not settle."""
    points = plateaus(server)
    if points.empty or not points["settled"].iloc[-1]:
        return math.nan
    return float(points["rss_bytes"].iloc[-1])


def plateaus_table(run: Run) -> pd.DataFrame:
    """Every step of every compared server: open sockets, RSS plateau (MiB), its drift, and whether it settled (or why not)."""
    rows = []
    for server in run.comparable:
        for _, p in plateaus(server).iterrows():
            rows.append(
                {
                    "run": server.name,
                    "step": p["step"],
                    "open sockets": p["open_sockets"],
                    "RSS plateau (MiB)": p["rss_bytes"] / (1 << 20),
                    "RSS drift over the last third (%)": p["rss_drift_percent"],
                    "settled": "yes" if p["settled"] else p["why"],
                }
            )
    return pd.DataFrame(rows)


def live_heap_points(server: ServerRun) -> pd.DataFrame:
    """One row per GC during the socket steps: open_sockets then, and heap_after_gc_bytes (the live heap, from JFR).

    What survives a collection is what the connections keep; heap used, and so RSS, also holds
    garbage until ZGC gets to it, which depends on the heap size more than on the sockets. There
    are only as many points as collections, which an idle server makes few of.
    """
    columns = ["time_s", "open_sockets", "heap_after_gc_bytes"]
    jfr, load = server.jfr, server.load
    if jfr.empty or load.empty:
        return pd.DataFrame(columns=columns)
    gcs = jfr[(jfr["metric"] == "heap_after_gc_bytes") & jfr["phase"].str.startswith(STEP_PREFIX)]
    gcs = gcs[["time_s", "value"]].rename(columns={"value": "heap_after_gc_bytes"}).sort_values("time_s")
    opened = load[["time_s", "sockets_opened_total"]].rename(columns={"sockets_opened_total": "open_sockets"}).sort_values("time_s")
    # The sockets open at a GC: k6's count at its last report before it.
    joined = pd.merge_asof(gcs.astype({"time_s": float}), opened.astype({"time_s": float}), on="time_s", direction="backward")
    # Generational ZGC reports the heap after a major collection twice (its young and old parts
    # end together): one collection is one point, not two that would fake a perfect fit.
    return joined.dropna()[columns].drop_duplicates(subset=["open_sockets", "heap_after_gc_bytes"]).reset_index(drop=True)


@dataclass(frozen=True)
class LineFit:
    """Bytes per connection (the slope, with its 95% interval) and memory at rest (the intercept)."""

    slope: float
    slope_low: float
    slope_high: float
    intercept: float
    r_squared: float
    points: int
    # For the interval of the line's value away from the plateaus (see interval_at).
    residual_sd: float = math.nan
    mean_sockets: float = math.nan
    sockets_spread: float = math.nan  # sum of squared deviations of open_sockets from their mean
    # The steps left out of the line because they did not settle, each with why.
    left_out: tuple[str, ...] = ()

    def at(self, sockets: float) -> float:
        return self.intercept + self.slope * sockets

    def interval_at(self, sockets: float) -> tuple[float, float]:
        """The 95% confidence interval of the line's value at `sockets` (of the mean, not of one sample).

        It widens with the distance from the measured plateaus, which is what an extrapolation
        from 15K to 50K sockets must show.
        """
        if self.points <= 2 or not self.sockets_spread > 0:
            return math.nan, math.nan
        half = (
            stats.t.ppf(0.975, self.points - 2)
            * self.residual_sd
            * math.sqrt(1 / self.points + (sockets - self.mean_sockets) ** 2 / self.sockets_spread)
        )
        return self.at(sockets) - half, self.at(sockets) + half


def per_connection(points: pd.DataFrame, column: str) -> LineFit:
    """Least squares of `column` against open_sockets over the plateaus that settled (all points, for points without a `settled` column).

    The interval is the slope's 95% confidence interval from Student's t with n - 2 degrees of
    freedom: wide with five steps, and undefined (NaN) with two, which is honest about how much
    a handful of plateaus can say.
    """
    left_out: tuple[str, ...] = ()
    if "settled" in points.columns:
        unsettled = points[~points["settled"].astype(bool)]
        left_out = tuple(f"step {int(p['step'])}: {p['why']}" for _, p in unsettled.iterrows())
        points = points[points["settled"].astype(bool)]
    data = points[["open_sockets", column]].dropna()
    n = len(data)
    if n < 2 or data["open_sockets"].nunique() < 2:
        return LineFit(math.nan, math.nan, math.nan, math.nan, math.nan, n, left_out=left_out)
    fit = stats.linregress(data["open_sockets"], data[column])
    half_width = stats.t.ppf(0.975, n - 2) * fit.stderr if n > 2 else math.nan
    xs, ys = data["open_sockets"].astype(float), data[column].astype(float)
    residuals = ys - (fit.intercept + fit.slope * xs)
    return LineFit(
        slope=fit.slope,
        slope_low=fit.slope - half_width,
        slope_high=fit.slope + half_width,
        intercept=fit.intercept,
        r_squared=fit.rvalue**2,
        points=n,
        residual_sd=math.sqrt((residuals**2).sum() / (n - 2)) if n > 2 else math.nan,
        mean_sockets=xs.mean(),
        sockets_spread=((xs - xs.mean()) ** 2).sum(),
        left_out=left_out,
    )


def fits_table(run: Run) -> pd.DataFrame:
    """One row per server run and memory measure: bytes per socket with its 95% interval, memory at rest (MiB), R², points fitted,
    and the steps left out of the line because they did not settle.

    The points are the step plateaus, except for the live heap: one per GC during the steps.
    """
    rows = []
    for server in run.comparable:
        points = plateaus(server)
        for column, label in [
            ("rss_bytes", "RSS"),
            ("pss_bytes", "PSS"),
            ("heap_used_bytes", "heap used"),
            ("heap_after_gc_bytes", "live heap after GC"),
        ]:
            fit = per_connection(live_heap_points(server) if column == "heap_after_gc_bytes" else points, column)
            rows.append(
                {
                    "run": server.name,
                    "memory": label,
                    "bytes per socket": fit.slope,
                    "95% low": fit.slope_low,
                    "95% high": fit.slope_high,
                    "at rest (MiB)": fit.intercept / (1 << 20),
                    "R²": fit.r_squared,
                    "points": fit.points,
                    "steps left out": "; ".join(fit.left_out),
                }
            )
    return pd.DataFrame(rows)
