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

from .across import Across, across, range_order
from .runs import MOVED_AT_MOST

# The least lead, in every round, that names one server or model ahead of another: as much as a second run may move a figure and
# still be said to repeat it (runs.MOVED_AT_MOST). A smaller lead, though it held in every round of one run, is one a second run
# that repeated every figure could take back (docs/METHODS.md, "Statistics").
LEAD_AT_LEAST = 1 + MOVED_AT_MOST


def in_rounds(a: Mapping[Hashable, float], b: Mapping[Hashable, float]) -> Across:
    """A's figure over B's in each round that measured both (keys: the rounds), then across those rounds: the median ratio, and its
    range as the interval (stats.across). A ratio compares amounts, so a round where either figure is missing (NaN) or not above 0
    (a slope of memory over a few hundred sockets can come out below 0) is left out, and `passes` counts the rounds compared."""
    ratios = [a[r] / b[r] for r in a.keys() & b.keys() if _positive(a[r]) and _positive(b[r])]
    return across(ratios)


def clear_lead(advantage: Across) -> bool:
    """Whether an advantage within rounds (in_rounds, over 1 where the first did better) names a leader: two rounds or more, and
    at least LEAD_AT_LEAST in the weakest."""
    return advantage.passes >= 2 and advantage.low >= LEAD_AT_LEAST


def apart_in_rounds(leader: Mapping[Hashable, tuple[float, float]], other: Mapping[Hashable, tuple[float, float]], lower_is_better: bool) -> bool:
    """Whether, in every round in which both passes measured a figure with an interval of their own (keys: the rounds; values: the
    pass's (low, high), such as a percentile's block bootstrap over its seconds), the leader's interval lies wholly on its better
    side of the other's. A round's ratio orders two servers only as precisely as each pass measured its figure: a p99 over a steady
    phase of a few seconds is decided by the handful that held a stall, and two passes whose intervals overlap did not order their
    servers, whatever their ratio (docs/METHODS.md, "Statistics"). A round without both intervals makes no claim either way."""
    for r in leader.keys() & other.keys():
        if any(math.isnan(v) for v in (*leader[r], *other[r])):
            continue
        if range_order(leader[r], other[r]) != (-1 if lower_is_better else 1):
            return False
    return True


def _positive(value: float) -> bool:
    return value is not None and not math.isnan(value) and value > 0


def ranked_in_rounds(by_name: Mapping[str, Mapping[Hashable, float]], lower_is_better: bool) -> list[str]:
    """The names best first, each pair ordered by its own ratio within the rounds that measured both (in_rounds): a name comes before
    another whose figure its median ratio across those rounds favours, so the first is ahead of the second by the very factor the
    verdict shows. Names are ranked by how many others they are ahead of so; ties, and pairs no round measured both of, by each
    name's figure over its round's geometric mean of all names, across the rounds that measured them all (the host's drift cancels
    as in `in_rounds`), or else by the median across rounds."""
    if not by_name:
        return []
    names = list(by_name)
    ahead = dict.fromkeys(names, 0)
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            ratio = in_rounds(by_name[x], by_name[y]).median
            if math.isnan(ratio) or ratio == 1:
                continue
            x_better = ratio < 1 if lower_is_better else ratio > 1
            ahead[x if x_better else y] += 1
    score = _normalised(by_name)
    sign = 1 if lower_is_better else -1
    # A name with no figure at all (NaN) goes last whichever way is better.
    known = [n for n in names if not math.isnan(score[n])]
    return sorted(known, key=lambda n: (-ahead[n], sign * score[n])) + [n for n in names if math.isnan(score[n])]


def _normalised(by_name: Mapping[str, Mapping[Hashable, float]]) -> dict[str, float]:
    """Each name's median across rounds of its figure over the round's geometric mean of all names' (the rounds that measured them
    all with figures above 0), or its median across rounds where no round did."""
    common = set.intersection(*({r for r, v in values.items() if _positive(v)} for values in by_name.values()))
    if common:
        means = {r: math.exp(sum(math.log(values[r]) for values in by_name.values()) / len(by_name)) for r in common}
        return {name: across([values[r] / means[r] for r in common]).median for name, values in by_name.items()}
    return {name: across(list(values.values())).median for name, values in by_name.items()}
