"""What vegeta sent in one attack (VegetaCurve): the requests due within a phase's seconds, those that failed, their timings by
vegeta's own clock, and how many it did not send on time. One rule for every phase vegeta offers: the steady /json phase
(latency.endpoint_table) and each of the curve's steps (curve_sent)."""

from __future__ import annotations

import math

import pandas as pd

from ..folder.bench_manifest import LoadPhase
from ..folder.run import Run, ServerRun

# How late a request may start before an open model counts it as dropped: k6's VUs hold a second's worth (K6Plan.STALL_TOLERANCE_MS).
STALL_TOLERANCE_S = 1.0
# How late a request may start and still count as sent when due: its stamp is a whole ms (RunClock.secondsAt), and the schedule's
# start is the earliest stamp's, so a request sent on time may read up to about 1.5 ms late.
ON_TIME_S = 0.002


def attack_rows(server: ServerRun, attack: str) -> pd.DataFrame:
    """The rows of vegeta's `attack`; none (vegeta's columns, or none where it sent nothing) where it made no such attack."""
    return server.vegeta_attacks.get(attack, server.vegeta.iloc[0:0])


def sent(server: ServerRun, attack: str, rate_per_s: int, from_s: float, to_s: float, settle_from_s: float | None = None) -> dict:
    """vegeta's `attack`, offered at `rate_per_s` from `settle_from_s` (its start; `from_s` where none), counted over [from_s, to_s)
    seconds of load: `sent`, `failed` (no 200, or a /json body not the contract's), `dropped`, `ms`, each request's latency, and
    `answered`, the requests sent in the phase named for the attack (by the pass's clock, as the CPU's seconds are named), whichever
    step had them due, that did not fail.

    The n-th request of an attack is due n / rate after the first was sent. A step's requests are those due in it; what the server
    answered in its seconds is counted by when they went out, the seconds its CPU is read over: a server past its capacity, with every
    worker busy, is sent requests as it answers them, later and later behind their schedule, so that those due in a step's measured
    seconds go out after them.

    Where k6 has a VU a second's worth of requests deep and drops an iteration that finds none free (K6Plan.STALL_TOLERANCE_MS),
    vegeta, with as many workers or the pool's connections if fewer (VegetaCurve.workersFor), waits for one; a request it sent more
    than that second late, or never sent, counts as dropped, so the two are judged alike, and its `ms` is vegeta's own. A request
    sent late by less (and by more than ON_TIME_S) is timed from when it was due: its `ms` is vegeta's latency and its lateness, so
    that a wait for a worker is in the load generator's latency, as a wait for a connection is (without it, a stall's requests would
    read as fast as those after it: the coordinated omission wrk2 names)."""
    rows = attack_rows(server, attack)
    first = rate_per_s * (from_s - (settle_from_s if settle_from_s is not None else from_s))
    due = rate_per_s * (to_s - from_s)
    if rows.empty:
        dropped = float(due) if not server.vegeta.empty else math.nan
        return {"sent": 0, "failed": 0.0, "dropped": dropped, "ms": pd.Series(dtype=float), "answered": 0}
    began = float((rows["time_s"] - rows["seq"] / rate_per_s).min())
    mine = rows[(rows["seq"] >= first) & (rows["seq"] < first + due)]
    lateness_s = mine["time_s"] - (began + mine["seq"] / rate_per_s)
    late = lateness_s > STALL_TOLERANCE_S
    failed = float((mine["checks_passed"] != 1).sum())
    ms = mine["ms"].astype(float) + 1000 * lateness_s.where((lateness_s > ON_TIME_S) & ~late, 0.0)
    answered = int(((rows["phase"] == attack) & (rows["checks_passed"] == 1)).sum())
    return {"sent": len(mine), "failed": failed, "dropped": float(due - (~late).sum()), "ms": ms, "answered": answered}


def timings(server: ServerRun, attack: str) -> pd.DataFrame:
    """Every request of vegeta's `attack`: `timestamp`, the whole epoch second it was sent in (as k6 stamps its samples; NaN where
    the pass recorded no load start), and `duration_ms`, its latency by vegeta's clock. Empty where vegeta offered no such attack."""
    rows = attack_rows(server, attack)
    start_ms = server.outcome.load_start_epoch_ms
    stamps = (start_ms / 1000 + rows["time_s"]) // 1 if start_ms is not None and not rows.empty else math.nan
    return pd.DataFrame({"timestamp": stamps, "duration_ms": rows["ms"].astype(float) if not rows.empty else []}).reset_index(drop=True)


def steady_phase(run: Run, endpoint: str) -> LoadPhase | None:
    """The run's steady phase of `endpoint` (named for it, LoadTimeline) where vegeta offered it (the profile's jsonGenerator); None
    where k6 did, or the timeline has no such phase."""
    found = next((p for p in run.timeline if p.name == endpoint), None)
    return found if found is not None and found.generator == "vegeta" else None


def steady(server: ServerRun, phase: LoadPhase) -> dict:
    """`sent` for the steady phase vegeta offered (`steady_phase`): its attack starts with the phase, at its rate."""
    return sent(server, phase.name, phase.rate_per_second, phase.from_seconds, phase.to_seconds)
