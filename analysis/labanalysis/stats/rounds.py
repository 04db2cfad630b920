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


def ranked_in_rounds(by_name: Mapping[str, Mapping[Hashable, float]], lower_is_better: bool) -> list[str]:
    """The names best first, each scored by the median across the rounds that measured them all of its figure over that round's
    geometric mean of theirs: the host's drift cancels as in `in_rounds`, so the first is the one the round ratios favour. By the
    median across rounds where no round measured them all with figures above 0."""
    if not by_name:
        return []
    common = set.intersection(*({r for r, v in values.items() if _positive(v)} for values in by_name.values()))
    if common:
        means = {r: math.exp(sum(math.log(values[r]) for values in by_name.values()) / len(by_name)) for r in common}
        score = {name: across([values[r] / means[r] for r in common]).median for name, values in by_name.items()}
    else:
        score = {name: across(list(values.values())).median for name, values in by_name.items()}
    # A name with no figure at all (NaN) goes last whichever way is better.
    known = [n for n in by_name if not math.isnan(score[n])]
    return sorted(known, key=lambda n: score[n], reverse=not lower_is_better) + [n for n in by_name if math.isnan(score[n])]
