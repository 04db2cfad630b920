"""Two servers' figures set against each other round by round.

A run is made of rounds: one pass of every server, in a shuffled order, back to back (lab.bench.Pass.plan). The host drifts over a
run (another tenant, a warmer cache), and a pass's absolute figures drift with it, by 5-12% here; two passes of the same round ran
minutes apart and drifted alike. So A's figure over B's in one round cancels most of the drift, and the ratio's range across rounds
says whether A and B keep their order in every round, which ranges of absolute figures on a drifting host cannot (docs/METHODS.md,
"Statistics").
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

from .across import Across, across


def in_rounds(a: Mapping[Hashable, float], b: Mapping[Hashable, float]) -> Across:
    """A's figure over B's in each round that measured both (keys: the rounds), then across those rounds: the median ratio, and its
    range as the interval (stats.across). A ratio compares amounts, so a round where either figure is missing (NaN) or not above 0
    (a slope of memory over a few hundred sockets can come out below 0) is left out, and `passes` counts the rounds compared."""
    ratios = [a[r] / b[r] for r in a.keys() & b.keys() if _positive(a[r]) and _positive(b[r])]
    return across(ratios)


def _positive(value: float) -> bool:
    return value is not None and not math.isnan(value) and value > 0
