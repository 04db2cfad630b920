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


def order(a: Across, b: Across) -> int | None:
    """The lab's one judge of two figures across passes: 1 where A's range lies wholly above B's, -1 wholly below, 0 where they
    overlap (ranges that touch overlap: some pass of one is not clear of every pass of the other); None where either has fewer
    than two passes, and so no range to judge by."""
    if not a.has_interval or not b.has_interval:
        return None
    return range_order((a.low, a.high), (b.low, b.high))


def range_order(a: tuple[float, float], b: tuple[float, float]) -> int:
    """`order` of two (low, high) ranges of any kind, such as a pass's own interval of a percentile: 1, -1 or 0."""
    (a_low, a_high), (b_low, b_high) = a, b
    return 1 if a_low > b_high else -1 if a_high < b_low else 0


def apart(best: Across, other: Across, lower_is_better: bool) -> str:
    """Whether `best` is ahead of `other` across passes: their intervals apart, overlapping, or one pass and so no conclusion."""
    found = order(best, other)
    if found is None:
        return ONE_PASS
    return "apart across passes" if found == (-1 if lower_is_better else 1) else "overlap across passes: not resolved"


def separated(a: Across, b: Across) -> str:
    """`apart` without a side: whether the two ranges across passes do not overlap, in apart's words."""
    low, high = sorted([a, b], key=lambda v: v.median)
    return apart(low, high, lower_is_better=True)
