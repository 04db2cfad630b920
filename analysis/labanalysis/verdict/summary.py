"""The table the report opens with: for each headline figure, which server wins, by how much, and how sure we are.

Every figure is a server's median across its passes (perpass, repeats). The servers are ordered as the verdict orders models, by
their figures within rounds (stats.ranked_in_rounds), and "how sure" is decided as the verdict decides it
(labanalysis.verdict.verdict): the best server is ahead when it led the runner-up clearly in every round that measured both
(stats.in_rounds, stats.clear_lead), which cancels the host's drift over a run; where the passes carry no rounds, when its range
across passes and the runner-up's do not overlap. A percentile's interval within one pass says how precisely that pass measured it,
not whether another pass would agree, so it never names a leader; but a round in which the two passes' intervals overlap did not
order them, so a lead that held in every round yet lay inside those intervals in some is not resolved, as in the verdict
(stats.apart_in_rounds). A capacity that is only a floor (perpass.FLOORS) is led by "at least" its factor, and a lead over one is
not resolved, as in the verdict. With one pass per server no comparison is concluded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from .. import stats
from ..stats import Across
from ..stats.numbers import number, shown
from . import perpass


@dataclass(frozen=True)
class ServersOnFigure:
    """One figure (a perpass.Figure, by its key) with each server's value of it across passes, and what marks them."""

    key: str  # perpass.Figure.key; a table shows its label
    lower_is_better: bool
    values: dict[str, Across]  # by server
    # For a latency figure: by server, how many of its passes had the load generator as their bottleneck, and how many a saturated
    # server.
    bottlenecked: dict[str, int] = field(default_factory=dict)
    saturated: dict[str, int] = field(default_factory=dict)
    # By server: its value in each round, keyed by (run folder, round); empty where the passes carry no rounds.
    rounds: dict[str, dict[tuple[str, int], float]] = field(default_factory=dict)
    # By server: its pass's own interval (low, high) in each round, where the figure has one (perpass.intervals_of).
    intervals: dict[str, dict[tuple[str, int], tuple[float, float]]] = field(default_factory=dict)
    # By server: the rounds in which its value was only a floor (perpass.floors_by_round).
    floors: dict[str, set[tuple[str, int]]] = field(default_factory=dict)


def figures(per_pass: pd.DataFrame) -> list[ServersOnFigure]:
    """The headline figures (perpass.FIGURES), each server's median across its passes with their range, from the rows the verdict
    compares (perpass.for_verdict)."""
    summary = perpass.per_server(per_pass)
    found = []
    for figure in perpass.FIGURES:
        rows = summary[summary["figure"] == figure.key]
        if rows.empty or rows["median"].isna().all():
            continue  # not in these runs (a sustained rate where no curve ran): said in its own section
        values = {r["server"]: Across(r["median"], r["low"], r["high"], r["passes"]) for _, r in rows.iterrows()}
        passes = per_pass[per_pass["figure"] == figure.key]
        marked = {
            mark: passes[passes[mark] != ""].groupby("server").size().to_dict() if figure in latencies else {}
            for mark, latencies in (("bottleneck", perpass.LATENCY), ("saturated", perpass.SERVER_LATENCY))
        }
        by_server = passes.groupby("server", sort=False)
        rounds = {s: perpass.by_round(g) for s, g in by_server} if "round" in passes.columns else {}
        intervals = {s: perpass.intervals_by_round(g) for s, g in by_server} if "round" in passes.columns else {}
        floors = {s: perpass.floors_by_round(g) for s, g in by_server} if "round" in passes.columns else {}
        found.append(
            ServersOnFigure(figure.key, figure.lower_is_better, values, marked["bottleneck"], marked["saturated"], rounds, intervals, floors)
        )
    return found


def values_table(figs: list[ServersOnFigure]) -> pd.DataFrame:
    """Figures as rows, servers as columns: the median across passes, and the range in brackets where there are two passes or more."""
    return pd.DataFrame({perpass.label(fig.key): {name: shown(v) for name, v in fig.values.items()} for fig in figs}).T


def winners(figs: list[ServersOnFigure]) -> pd.DataFrame:
    """For each figure: the best server, the runner-up, by how much, and whether the ranges across passes say it is so."""
    rows = []
    for fig in figs:
        measured = {name: v for name, v in fig.values.items() if not math.isnan(v.median)}
        if len(measured) < 2:
            continue
        ranked = [(name, measured[name]) for name in _order(fig, measured)]
        best_value = ranked[0][1].median
        best = [name for name, v in ranked if v.median == best_value]
        rest = [(name, v) for name, v in ranked if v.median != best_value]
        if not rest:
            rows.append(
                {
                    "figure": perpass.label(fig.key),
                    "best": "all equal",
                    "value": number(best_value),
                    "runner-up": "",
                    "runner-up value": "",
                    "by how much": "tie",
                    "how sure": "equal",
                }
            )
            continue
        second, r = rest[0]
        # With a tie for best, the surest comparison is the weakest of the tied ones.
        sure = min(
            (
                how_sure(
                    measured[name],
                    r,
                    fig.lower_is_better,
                    fig.rounds.get(name, {}),
                    fig.rounds.get(second, {}),
                    stats.apart_in_rounds(fig.intervals.get(name, {}), fig.intervals.get(second, {}), fig.lower_is_better),
                )
                for name in best
            ),
            key=SURENESS.index,
        )
        if sure == AHEAD and fig.floors.get(second):
            sure = OVER_A_FLOOR
        marked = sum(fig.bottlenecked.get(name, 0) for name in [*best, second])
        if marked:
            sure += f"; the load generator was the bottleneck in {marked} of these servers' passes, whose latency measures it"
        saturated = sum(fig.saturated.get(name, 0) for name in [*best, second])
        if saturated:
            sure += f"; the server was saturated in {saturated} of these servers' passes, whose latency holds its queue"
        rows.append(
            {
                "figure": perpass.label(fig.key),
                "best": " = ".join(best),
                "value": number(best_value),
                "runner-up": second,
                "runner-up value": number(r.median),
                "by how much": ("at least " if fig.floors.get(best[0]) else "") + _how_much(fig, best[0], second, best_value, r.median),
                "how sure": sure,
            }
        )
    return pd.DataFrame(rows)


def _order(fig: ServersOnFigure, measured: dict[str, Across]) -> list[str]:
    """The servers best first: as the verdict orders models (stats.ranked_in_rounds) where every one has rounds, so that the table
    and the verdict agree; by the median across passes where the passes carry no rounds."""
    if fig.rounds and all(fig.rounds.get(name) for name in measured):
        return stats.ranked_in_rounds({name: fig.rounds[name] for name in measured}, fig.lower_is_better)
    return [name for name, _ in sorted(measured.items(), key=lambda item: item[1].median, reverse=not fig.lower_is_better)]


def _how_much(fig: ServersOnFigure, best: str, runner_up: str, best_value: float, runner_up_value: float) -> str:
    """The best server's advantage over the runner-up as the verdict gives it: the median across rounds of the ratio within each
    (over 1 where the best did better), with its range, so that a round that put the runner-up ahead shows below 1; the ratio of the
    medians (by_how_much) where the two share no round."""
    a, b = fig.rounds.get(best, {}), fig.rounds.get(runner_up, {})
    advantage = stats.in_rounds(b, a) if fig.lower_is_better else stats.in_rounds(a, b)
    if not advantage.passes:
        return by_how_much(best_value, runner_up_value)
    return f"{advantage.median:.2f}x [{advantage.low:.2f}, {advantage.high:.2f}]" if advantage.has_interval else f"{advantage.median:.2f}x"


def by_how_much(best: float, runner_up: float) -> str:
    """The runner-up's value over the best one's, as a factor; words where a factor means nothing."""
    if best == runner_up:
        return "tie"
    low, high = sorted([abs(best), abs(runner_up)])
    if low == 0:
        return f"{number(best)} against {number(runner_up)}"
    return f"{high / low:.2f}x"


AHEAD = "ahead in every round"
CHANGED_PLACES = "changed places in some round: not resolved"
SMALL_LEAD = f"ahead in every round, by under {stats.LEAD_AT_LEAST - 1:.0%} in some: not resolved"
INSIDE_INTERVALS = "ahead in every round, inside the passes' own intervals in some: not resolved"
OVER_A_FLOOR = "ahead in every round, over a capacity that is only a floor in some: not resolved"
SURENESS = [
    CHANGED_PLACES,
    SMALL_LEAD,
    INSIDE_INTERVALS,
    OVER_A_FLOOR,
    "overlap across passes: not resolved",
    stats.ONE_PASS,
    AHEAD,
    "apart across passes",
    "equal",
]


def how_sure(
    best: Across,
    runner_up: Across,
    lower_is_better: bool,
    best_rounds: dict | None = None,
    runner_up_rounds: dict | None = None,
    measured_apart: bool = True,
) -> str:
    """`equal`; or, where both servers have rounds in common, the best one's advantage in each (stats.in_rounds): ahead in every
    round by a clear lead (stats.clear_lead) whose passes measured it apart (`measured_apart`, stats.apart_in_rounds), ahead in
    every round by a clear lead inside the passes' own intervals in some, ahead by less in some, changed places in some, or one
    round (a pass each) and so no conclusion; otherwise stats.apart on the ranges across passes."""
    if best.median == runner_up.median:
        return "equal"
    a, b = best_rounds or {}, runner_up_rounds or {}
    advantage = stats.in_rounds(b, a) if lower_is_better else stats.in_rounds(a, b)
    if advantage.passes == 0:
        return stats.apart(best, runner_up, lower_is_better)
    if not advantage.has_interval:
        return stats.ONE_PASS
    if stats.clear_lead(advantage):
        return AHEAD if measured_apart else INSIDE_INTERVALS
    return SMALL_LEAD if advantage.low > 1 else CHANGED_PLACES
