"""A figure across passes: its median and the range across them, and whether two such figures are apart.

This is the lab's one convention for a compared figure (a pass is a fresh JVM; see labanalysis.folder.repeats for which passes are
compared). Within a pass, a percentile's or a slope's interval says how precisely that pass measured it, not how another pass would
come out; so a compared figure is a median across passes, and its interval the range across them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Across:
    """A figure across passes: the median, and the interval across them (NaN with fewer than two passes), from `passes` values.

    With the 2 to 5 passes a run makes, the honest interval is the range itself, lowest to highest: a
    confidence interval from three values would rest on a distribution they cannot show. Two servers
    whose ranges do not overlap came out in the same order in every pass.
    """

    median: float
    low: float
    high: float
    passes: int

    @property
    def has_interval(self) -> bool:
        return self.passes >= 2


def across(values) -> Across:
    """The one convention for a figure across passes (NaNs are passes that did not measure it): see Across."""
    data = pd.Series(values, dtype=float).dropna()
    if data.empty:
        return Across(math.nan, math.nan, math.nan, 0)
    many = len(data) >= 2
    return Across(float(data.median()), float(data.min()) if many else math.nan, float(data.max()) if many else math.nan, len(data))


ONE_PASS = "one pass: no comparison can be concluded"


def apart(best: Across, other: Across, lower_is_better: bool) -> str:
    """Whether `best` is ahead of `other` across passes: their intervals apart, overlapping, or one pass and so no conclusion."""
    if not best.has_interval or not other.has_interval:
        return ONE_PASS
    separated = best.high < other.low if lower_is_better else best.low > other.high
    return "apart across passes" if separated else "overlap across passes: not resolved"


def separated(a: Across, b: Across) -> str:
    """`apart` without a side: whether the two ranges across passes do not overlap, in apart's words."""
    low, high = sorted([a, b], key=lambda v: v.median)
    return apart(low, high, lower_is_better=True)
