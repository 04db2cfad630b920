"""The engine's share of a verdict cell: one model on two engines, which engine did better, by its factor across rounds, named
by the same rule as a model (labanalysis.verdict.verdict). Any two sides of a figure set against each other so (PairEffect) are
written alike: a model against a model it is made of too (labanalysis.verdict.parents)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .. import stats
from ..folder import catalogue
from . import perpass
from .verdict_words import FLOORED, INSIDE_INTERVALS, NO_WINNER, factor


@dataclass(frozen=True)
class PairEffect:
    """Two sides of one figure set against each other round by round, within one thing they share: two engines of one model (the
    engine's share of a verdict cell), or a model and a model it is made of on one engine (verdict.parents). The side the rounds put
    first, the other, and the first's advantage across rounds."""

    within: str
    first: str
    second: str
    advantage: stats.Across
    # Whether the two sides' passes measured the figure apart in every round, where a pass has an interval of its own
    # (stats.apart_in_rounds).
    measured_apart: bool = True
    # Whether the first's figure, or the second's, was only a floor (perpass.FLOORS) in some round both measured.
    first_floor: bool = False
    second_floor: bool = False

    @property
    def named(self) -> bool:
        """Whether the first side led the other clearly in every round, over at least two rounds (stats.clear_lead), its passes
        measured it apart from the other's, and the other's figure was no floor, which a lead over cannot be read."""
        return stats.clear_lead(self.advantage) and self.measured_apart and not self.second_floor


def advantage_in_rounds(best: dict, other: dict, lower_is_better: bool) -> stats.Across:
    """The best model's advantage over `other` in each round, as a factor over 1 where it did better: other / best for a figure
    where lower is better (memory, latency), best / other where higher is (a capacity)."""
    return stats.in_rounds(other, best) if lower_is_better else stats.in_rounds(best, other)


def pair_effect(rows: pd.DataFrame, side: str, within: str, figure: perpass.Figure) -> PairEffect:
    """`rows` (perpass rows of `figure` that measured it, of exactly two values of the column `side`) as a PairEffect: its two sides
    ordered by their figures within rounds."""
    on = {s: perpass.by_round(g) for s, g in rows.groupby(side, sort=False)}
    intervals = {s: perpass.intervals_by_round(g) for s, g in rows.groupby(side, sort=False)}
    floors = {s: perpass.floors_by_round(g) for s, g in rows.groupby(side, sort=False)}
    first, second = stats.ranked_in_rounds(on, figure.lower_is_better)[:2]
    apart = stats.apart_in_rounds(intervals[first], intervals[second], figure.lower_is_better)
    advantage = advantage_in_rounds(on[first], on[second], figure.lower_is_better)
    return PairEffect(within, first, second, advantage, apart, bool(floors[first] & on[second].keys()), bool(floors[second] & on[first].keys()))


def engine_effect(values: pd.DataFrame, figure: perpass.Figure) -> PairEffect | None:
    """The first model that ran on two engines which both measured `figure`, the engines ordered by their figures within rounds; None
    where no model did."""
    measured = values[values["value"].notna()]
    engines_of = measured.groupby("model", sort=False)["engine"].unique()
    two = [m for m, engines in engines_of.items() if len(engines) >= 2]
    if not two:
        return None
    return pair_effect(measured[measured["model"] == two[0]], "engine", two[0], figure)


def pair_cell(effect: PairEffect, name: Callable[[str], str]) -> str:
    """Which side did better, by its factor across rounds, or why neither can be named; `name` says a side in words."""
    words = f"{name(effect.first)} {factor(effect.advantage, effect.first_floor)} over {name(effect.second)}"
    if effect.advantage.passes == 0:
        return f"no round measured both {name(effect.first)} and {name(effect.second)} with figures above 0"
    if effect.advantage.passes < 2:
        return f"{words}, one round: {NO_WINNER}"
    if effect.named:
        return words
    if effect.second_floor and stats.clear_lead(effect.advantage) and effect.measured_apart:
        return f"{words}: {NO_WINNER}, {name(effect.second)} {FLOORED}"
    if stats.clear_lead(effect.advantage):
        return f"{words}: {NO_WINNER}, {INSIDE_INTERVALS}"
    if effect.advantage.low > 1:
        return f"{words}: {NO_WINNER}, its lead under {stats.LEAD_AT_LEAST - 1:.0%} in some round"
    return f"{words}: {NO_WINNER}, it changed places in some round"


def engine_cell(values: pd.DataFrame, figure: perpass.Figure) -> str:
    """One model on two engines: which engine did better, by its factor across rounds, or that no engine can be named."""
    effect = engine_effect(values, figure)
    if effect is None:
        # A model the run ran on two engines, one of which measured nothing: not the same as a run with no engine effect to read.
        measured = values[values["value"].notna()]
        engines_of = measured.groupby("model", sort=False)["engine"].unique()
        ran = values.groupby("model", sort=False)["engine"].unique()
        unmeasured = [
            f"{catalogue.MODEL_WORDS.get(m, m)} on {catalogue.engine_label(e)}: not measured in this run"
            for m, engines in ran.items()
            if len(engines) >= 2
            for e in engines
            if e not in set(engines_of.get(m, []))
        ]
        return "; ".join(unmeasured) if unmeasured else "one engine per model: no engine effect"
    model = catalogue.MODEL_WORDS.get(effect.within, effect.within)
    if effect.advantage.passes == 0:
        return f"{model}: no round measured both engines with figures above 0"
    return f"{model}: {pair_cell(effect, catalogue.engine_label)}"
