"""The report's opening sentence: what the model costs (or buys) and what the engine does, each with its figure and how sure it is,
read off the grid's effects (grid.model_effects, grid.engine_effects)."""

from __future__ import annotations

import math

import pandas as pd

from ..folder import catalogue
from ..stats.numbers import number
from .grid import BUYS, HELD, PSS, RSS, UNITS, engine_effects, missing_engine_effect, missing_model_effect, model_effects
from .perpass import label


def summary_sentence(passes: pd.DataFrame, figure: str | None = None) -> str:
    """One sentence: what the model costs and what the engine costs in `figure` (a perpass.Figure key, named by its label), each
    with its figure and how sure it is.

    Without a figure: the memory a socket holds where the passes measured it (its live heap, native memory with a platform
    thread's stack, and the kernel's: memory.HELD), else PSS (what the process has resident, with heap pages its collector touched
    and no longer uses), else RSS. The live heap alone would hide most of what a platform thread costs: its stacks.

    The model's cost is read on the engine that runs the most models, as the largest difference between
    two of them; the engine's as the largest difference between two engines under one model. A cost this
    data cannot show is said to be missing, and why.
    """
    # What a model and an engine cost is read on the servers as the lab runs them; an arm is set against its own server apart.
    passes = catalogue.without_arms(passes)
    if figure is None:
        figure = next((f for f in (HELD, PSS) if passes.loc[passes["figure"] == f, "value"].notna().any()), RSS)
    unit = UNITS.get(figure, "")
    # A cost is the larger figure's; a rate the larger figure buys.
    verb = "buys" if figure in BUYS else "costs"
    model = _largest(model_effects(passes), figure, by_most_models=True)
    engine = _largest(engine_effects(passes), figure)
    if model is not None:
        model_part = (
            f"the model {verb} up to {number(model['difference'])} {unit}: on {model['within']}, "
            f"{catalogue.MODEL_WORDS.get(model['A'], model['A'])} {number(model['A median'])} against "
            f"{catalogue.MODEL_WORDS.get(model['B'], model['B'])} {number(model['B median'])} {unit} {_how_sure(model, unit)}"
        )
    else:
        model_part = f"the model's cost is not measured: {missing_model_effect(passes) or f'no {label(figure)} to compare'}"
    if engine is not None:
        engine_part = (
            f"the engine {verb} {number(engine['difference'])} {unit}: {catalogue.MODEL_WORDS.get(engine['within'], engine['within'])} "
            f"on {engine['A']} {number(engine['A median'])} against on {engine['B']} {number(engine['B median'])} {unit} {_how_sure(engine, unit)}"
        )
    else:
        engine_part = f"the engine's cost is not measured: {missing_engine_effect(passes) or f'no {label(figure)} to compare'}"
    return f"In {label(figure).split(' (')[0]}, {model_part}; {engine_part}."


def _largest(effects: pd.DataFrame, figure: str, by_most_models: bool = False) -> pd.Series | None:
    """The effect of `figure` with the largest difference, turned so that A is the costlier; None if there is none."""
    rows = effects[(effects["figure"] == figure) & effects["difference"].notna()]
    if rows.empty:
        return None
    if by_most_models:
        counts = {w: len(set(g["A"]) | set(g["B"])) for w, g in rows.groupby("within", sort=False)}
        rows = rows[rows["within"] == max(counts, key=counts.get)]
    row = rows.loc[rows["difference"].abs().idxmax()].copy()
    if row["difference"] < 0:
        row["A"], row["B"] = row["B"], row["A"]
        row["A median"], row["B median"] = row["B median"], row["A median"]
        row["difference"], row["low"], row["high"] = -row["difference"], -row["high"], -row["low"]
        row["ratio"] = 1 / row["ratio"] if not math.isnan(row["ratio"]) else math.nan
        row["passes"] = " and ".join(reversed(row["passes"].split(" and ")))
    return row


def _how_sure(effect: pd.Series, unit: str) -> str:
    if math.isnan(effect["low"]):
        passes = "one pass each" if effect["passes"] == "1 and 1" else f"{effect['passes']} passes"
        return f"({passes}: no interval, so no conclusion)"
    interval = f"[{number(effect['low'])}, {number(effect['high'])}] {unit}"
    if effect["low"] <= 0 <= effect["high"]:
        return f"(median of {effect['passes']} passes, interval {interval}: no difference shown)"
    return f"(median of {effect['passes']} passes, interval {interval})"
