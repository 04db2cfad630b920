"""Whether a figure repeated in a second run: the test a published figure has to pass.

Two runs of one profile on one host, made back to back, are set against each other figure by figure. A figure repeated where the
second run's median moved at most MOVED_AT_MOST from the first's, or where each run's median lies inside the other run's range over
its passes: a figure whose passes spread wider than MOVED_AT_MOST within one run claims no more than that range, and a second run
inside it is what the first said to expect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .across import Across

# How far a figure may move between two runs and still be said to repeat. The host alone moves a pass's absolute figures by 5-12%
# (docs/METHODS.md, "Statistics"), so a figure that moved more than this moved more than the host does.
MOVED_AT_MOST = 0.15


@dataclass(frozen=True)
class Repeat:
    """B's median over A's (NaN where either is not measured), whether the figure repeated, and how, in words."""

    ratio: float
    repeated: bool
    how: str


def repeated(a: Across, b: Across) -> Repeat:
    """Whether `b`, the second run's figure across its passes, repeated `a`, the first's (see the module)."""
    if a.passes == 0 or b.passes == 0:
        missing = " and ".join(side for side, v in (("A", a), ("B", b)) if v.passes == 0)
        return Repeat(math.nan, False, f"not measured in {missing}")
    ratio = b.median / a.median if a.median else math.nan
    if not math.isnan(ratio) and abs(ratio - 1) <= MOVED_AT_MOST:
        return Repeat(ratio, True, f"within {MOVED_AT_MOST:.0%}")
    if _inside(a.median, b) and _inside(b.median, a):
        return Repeat(ratio, True, "each median inside the other run's range")
    moved = "its median is 0 in A" if math.isnan(ratio) else f"moved {ratio - 1:+.0%}"
    return Repeat(ratio, False, f"{moved}, outside the other run's range")


def _inside(value: float, other: Across) -> bool:
    return other.has_interval and other.low <= value <= other.high
