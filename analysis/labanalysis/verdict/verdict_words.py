"""How a verdict writes what it found: a factor across rounds, and the reasons no winner was named. The model's cells
(labanalysis.verdict.verdict) and the engine's (labanalysis.verdict.engine_verdict) write them alike."""

from __future__ import annotations

from .. import stats

NO_WINNER = "no winner can be named"
INSIDE_INTERVALS = "its lead lay inside the passes' own intervals in some round"
HOST_TOOK_EVERY_ROUND = "the host took some pass of every round that measured it: no round is left to judge"
FLOORED = "answered all of the ladder's top in some round: its capacity is only a floor there, and no lead over it can be read"


def factor(ratio: stats.Across, at_least: bool = False) -> str:
    """A factor across rounds as the verdict writes it: `1.14x [1.02, 1.23]`, or `at least 1.14x [1.02, 1.23]` where it is only a
    floor (Verdict.at_least)."""
    if ratio.passes == 0:
        return "not compared"
    interval = f" [{x(ratio.low)}, {x(ratio.high)}]" if ratio.has_interval else ""
    return f"{AT_LEAST if at_least else ''}{x(ratio.median)}x{interval}"


AT_LEAST = "at least "


def x(factor: float) -> str:
    """A factor to two decimals, or three where two would round it onto 1 and hide which side of 1 it is."""
    return f"{factor:.3f}" if factor != 1 and round(factor, 2) == 1 else f"{factor:.2f}"
