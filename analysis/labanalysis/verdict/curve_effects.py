"""The model effect and the engine effect at each step of the latency-throughput curve.

The grid compares servers on one figure per pass (grid.model_effects, grid.engine_effects). Here each offered rate of the curve is such
a figure: at 800 dashboards a second, virtual threads against platform threads on Jetty, coroutines on Jetty against coroutines on
Ktor. A model rarely differs at a rate every server holds with ease; where one stops holding it, the difference is the step's.
"""

from __future__ import annotations

import math

import pandas as pd

from ..curve import curve
from ..folder import catalogue, repeats
from ..stats.numbers import number
from . import arms, grid


def effects(per_step: pd.DataFrame, endpoint: str, figure: str) -> pd.DataFrame:
    """grid.EFFECT_COLUMNS for `figure` (a curve.FIGURES name) at each step of `endpoint`, its figure named by the rate (`800/s`):
    the model effects, the engine effects, then each arm against its server (arms.change_effects)."""
    column, _ = curve.FIGURES[figure]
    here = curve.ladder_steps(per_step[per_step["endpoint"] == endpoint])
    if here.empty:
        return pd.DataFrame(columns=grid.EFFECT_COLUMNS)
    passes = here[repeats.PASS_COLUMNS].assign(figure=[_rate(r) for r in here["offered_per_s"]], value=here[column].astype(float))
    rates = [_rate(r) for r in sorted(here["offered_per_s"].unique())]
    # An empty side (no engine runs two models, or no model two engines) is left out: pandas would otherwise guess its dtypes.
    effects = (grid.model_effects(passes, rates), grid.engine_effects(passes, rates), arms.change_effects(passes, rates))
    found = [f for f in effects if not f.empty]
    return pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=grid.EFFECT_COLUMNS)


def table(per_step: pd.DataFrame, endpoint: str, figure: str) -> pd.DataFrame:
    """Rows the pairs compared (_pair), columns the offered rates: A's median over B's, and whether every pair of passes agrees on
    the side (cell)."""
    found = effects(per_step, endpoint, figure)
    if found.empty:
        return pd.DataFrame()
    rows: dict[str, dict[str, str]] = {}
    for _, e in found.iterrows():
        rows.setdefault(f"{_pair(e)} ({e['A server']}, {e['B server']})", {})[e["figure"]] = cell(e)
    wide = pd.DataFrame.from_dict(rows, orient="index")
    wide.index.name = None
    return wide


def _pair(effect: pd.Series) -> str:
    """`on jetty: virtual threads against platform threads` (a model effect), `coroutines: jetty against ktor` (an engine effect)."""
    words = catalogue.MODEL_WORDS
    if effect["within"] in words:
        return f"{words[effect['within']]}: {effect['A']} against {effect['B']}"
    return f"on {effect['within']}: {words.get(effect['A'], effect['A'])} against {words.get(effect['B'], effect['B'])}"


def cell(effect: pd.Series) -> str:
    """One step's effect for a reader: A's median over B's as a factor, then what the passes show: `higher` or `lower` when every
    pair of passes is on that side, `overlap` when they straddle, `one pass` without an interval."""
    if math.isnan(effect["A median"]) or math.isnan(effect["B median"]):
        return "not measured"
    factor = f"{number(effect['ratio'])}x" if not math.isnan(effect["ratio"]) else f"{number(effect['difference'])} apart"
    if math.isnan(effect["low"]):
        return f"{factor}, one pass"
    side = "higher" if effect["low"] > 0 else "lower" if effect["high"] < 0 else "overlap"
    return f"{factor}, {side}"


def _rate(offered_per_s: float) -> str:
    return f"{offered_per_s:,.0f}/s"
