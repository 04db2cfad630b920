"""What the floor (`make floor`) tells a reader to pick, and whether the claims it checks held: the model whose parked task holds the
least memory at each depth, and the figures the lab was first given beside this run's. The figures are labanalysis.floor.floor's."""

from __future__ import annotations

import math

import pandas as pd

from ..bench import claims
from .floor import KIB, MIN_REPEATS_FOR_RANGE, WARM, FloorRun, kib_range, per_task

# How close to the cheapest model's figure another must be to share the pick.
NEAR_CHEAPEST = 0.15


def recommendations(run: FloorRun) -> list[dict]:
    """For each depth: the model whose parked task holds the least memory, on the newest JDK of the run, with the figures.

    The memory a task holds is its live heap plus the native memory the JVM commits for its
    thread (NMT's Thread category): a coroutine and a virtual thread keep theirs on the heap, a
    platform thread mostly in its stack. RSS is not used: for the models whose tasks live on the
    heap it is the heap's touched pages, which the garbage sets, not the tasks. The tasks are the warm JVMs', parked in code the JIT
    has compiled, as a warm server's are.
    """
    figures = per_task(run)
    figures = figures[figures["warmth"] == WARM]
    if figures.empty:
        return []
    newest = figures["jdk"].max()
    figures = figures[figures["jdk"] == newest].pivot_table(index=["depth", "model"], columns="measure", values="median")
    held = figures["live heap"] + figures["NMT thread committed"]
    rows = []
    for depth, by_model in held.groupby(level="depth"):
        by_model = by_model.droplevel("depth").sort_values()
        cheapest = by_model.iloc[0]
        picks = [model for model, value in by_model.items() if value <= cheapest * (1 + NEAR_CHEAPEST)]
        others = ", ".join(f"{model} {value / KIB:,.1f}" for model, value in by_model.items() if model not in picks)
        rows.append(
            {
                "need": f"many idle tasks parked {'directly' if depth == 0 else f'{depth} frames deep'}: memory per task",
                "pick": " or ".join(picks),
                "because": f"{' and '.join(f'{by_model[m] / KIB:,.1f}' for m in picks)} KiB a task (live heap and thread memory, JDK {newest}), "
                f"against {others} KiB",
            }
        )
    return rows


# The figures the lab was first given (docs/EXPERIMENTS.md, "Each model's floor"), unverified: a claim to check at depth 0, not a target.
CLAIM_SOURCE = "the figures the lab was first given (a previous measurement, unverified)"
CLAIMS = [
    claims.Claim("coroutine", "live heap per parked task", "~1.15-1.26 KB", 1.15 * KIB, 1.26 * KIB, "live heap"),
    claims.Claim("virtual", "live heap per parked task", "~2.94-3.04 KB", 2.94 * KIB, 3.04 * KIB, "live heap"),
    claims.Claim("platform", "live heap per parked task", "0.5-0.9 KB", 0.5 * KIB, 0.9 * KIB, "live heap"),
    claims.Claim("platform", "RSS per parked task", "~47 KB", 47 * KIB, 47 * KIB, "RSS"),
]


def claims_table(run: FloorRun) -> pd.DataFrame:
    """Each claim beside this run's median at depth 0 on each JDK, with the range, and whether it held (claims.verdict:
    within a quarter; `not resolved` when the range reaches the claim), of the warm JVMs, as the lab's floor always measured them."""
    figures = per_task(run)
    figures = figures[figures["warmth"] == WARM]
    rows = []
    for claim in CLAIMS:
        found = figures[(figures["model"] == claim.model) & (figures["measure"] == claim.measure) & (figures["depth"] == 0)]
        row = {"model": claim.model, "claim": claim.what, "it says": claim.quoted}
        if found.empty:
            rows.append({**row, "JDK": "", "this run (KiB)": "", "held?": "not measured"})
        for r in found.itertuples():
            # A range from fewer repeats is no spread to resolve a claim with: the median alone is judged.
            low, high = (r.low, r.high) if r.repeats >= MIN_REPEATS_FOR_RANGE else (math.nan, math.nan)
            rows.append(
                {
                    **row,
                    "JDK": r.jdk,
                    "this run (KiB)": kib_range(r.median, r.low, r.high, r.repeats),
                    "held?": claims.verdict(claim, r.median, low, high),
                }
            )
    return pd.DataFrame(rows)
