"""Whether a verdict repeated: two runs of one profile, their verdicts set cell by cell, then each server's capacity per CPU.

A reader trusts a verdict that a second run on the same host, made back to back, would give again: the same models named in every
cell (or none), by a lead that moved little, the engine effect likewise, and each server's capacity per CPU where the first run put
it. "Moved little" is stats.repeated's rule. A cell that named no model in either run claims no order, and so repeats whatever order
its medians came in; nor does a pair of models named together claim one between them. A factor that is only a floor in one run
(verdict.Verdict.at_least) repeated where the other run's lies at or above it, less what stats.repeated lets a figure move; two
floors claim only their order. `make compare` and `make headline A= B=` open with these two tables.
"""

from __future__ import annotations

import math

import pandas as pd

from .. import stats
from ..folder import catalogue
from ..stats.numbers import shown
from . import engine_verdict, perpass, verdict, verdict_words

CELL_COLUMNS = ["work", "judged on", "A", "B", "B / A", "repeated"]
CAPACITY_COLUMNS = ["server", "figure", "A", "B", "B / A", "repeated"]
CAPACITIES = (perpass.JSON_CAPACITY, perpass.DASHBOARD_CAPACITY)


def cells(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """perpass.table's rows of runs A and B: a row per verdict cell, the model's and then the engine's, each run's pick and factor,
    B's factor over A's, and whether the cell repeated (CELL_COLUMNS)."""
    rows = []
    for va, vb in zip(verdict.verdicts(a), verdict.verdicts(b), strict=True):
        judged_on = (va.figure or vb.figure).label if (va.figure or vb.figure) else ""
        rows.append({"work": va.work, "judged on": judged_on, **_model_cell(va, vb)})
        rows.append({"work": f"{va.work}: the engine", "judged on": judged_on, **_engine_cell(va, vb)})
    return pd.DataFrame(rows, columns=CELL_COLUMNS)


def _model_cell(a: verdict.Verdict, b: verdict.Verdict) -> dict:
    said = {"A": _pick(a), "B": _pick(b)}
    if a.figure is None or b.figure is None or a.figure != b.figure:
        return {**said, "B / A": "", "repeated": "no: not judged on the same figure" if (a.figure or b.figure) else "not measured in either"}
    if left := _no_round_left(a, b):
        return {**said, "B / A": "", "repeated": left}
    if set(a.picks) != set(b.picks):
        return {**said, "B / A": "", "repeated": "no: another model named" if a.picks and b.picks else "no: a model named in one run only"}
    if not a.picks:
        return {**said, "B / A": "", "repeated": "yes: no model named in either"}
    if _claimed_order(a) != _claimed_order(b):
        return {**said, "B / A": "", "repeated": "no: the models ranked otherwise"}
    return {**said, **_factor_moved(a.ratio, b.ratio, a.at_least, b.at_least)}


def _claimed_order(v: verdict.Verdict) -> tuple[str, ...]:
    """The order a cell's named models claim: the leader over the runner-up; for two named together, which led each other by less
    than a second run may move a figure, only the pair over the first model left."""
    return (v.runner_up,) if len(v.picks) > 1 else (v.leader, v.runner_up)


def _no_round_left(a: verdict.Verdict, b: verdict.Verdict) -> str:
    """Why a cell judged on a figure both runs measured did not repeat where the host took every round of it in one run or both
    (perpass.judged); empty where each run had a round to judge."""
    return _left_said([side for side, v in (("A", a), ("B", b)) if v.figure is not None and not v.best])


def _left_said(left: list[str]) -> str:
    """Whether a cell or a capacity repeated, where the host took every round of it in the runs `left` ("A", "B"); empty for none."""
    return f"no: no round left to judge in {' or '.join(left)}" if left else ""


def _engine_cell(va: verdict.Verdict, vb: verdict.Verdict) -> dict:
    a, b = va.engine_effect, vb.engine_effect
    said = {"A": _engine_said(va), "B": _engine_said(vb)}
    if left := _no_round_left(va, vb):
        return {**said, "B / A": "", "repeated": left}
    if a is None or b is None:
        return {**said, "B / A": "", "repeated": "not measured in either" if a is None and b is None else "no: measured in one run only"}
    if a.named != b.named:
        return {**said, "B / A": "", "repeated": "no: an engine named in one run only"}
    if not a.named:
        return {**said, "B / A": "", "repeated": "yes: no engine named in either"}
    if (a.first, a.second) != (b.first, b.second):
        return {**said, "B / A": "", "repeated": "no: the engines ranked otherwise"}
    return {**said, **_factor_moved(a.advantage, b.advantage, a.first_floor, b.first_floor)}


def _factor_moved(a: stats.Across, b: stats.Across, a_floor: bool = False, b_floor: bool = False) -> dict:
    found = _floors_repeated(a, b, a_floor, b_floor, stats.repeated(a, b))
    ratio = "" if math.isnan(found.ratio) else f"{found.ratio:.2f}x"
    return {"B / A": ratio, "repeated": _said(found)}


def _floors_repeated(a: stats.Across, b: stats.Across, a_floor: bool, b_floor: bool, found: stats.Repeat) -> stats.Repeat:
    """stats.repeated's answer where neither factor is a floor, or where it repeated anyway. Two floors bound their factors below
    only, and claim their order, which repeated. One floor claims its factor or more: the other run's repeats it where it lies at
    or above the floor, less what a figure may move (stats.MOVED_AT_MOST)."""
    if found.repeated or not (a_floor or b_floor):
        return found
    if a_floor and b_floor:
        return stats.Repeat(found.ratio, True, "both factors only floors, in the same order")
    floor, other, side = (a, b, "A") if a_floor else (b, a, "B")
    if other.median >= (1 - stats.MOVED_AT_MOST) * floor.median:
        return stats.Repeat(found.ratio, True, f"at or above {side}'s floor, less {stats.MOVED_AT_MOST:.0%}")
    return stats.Repeat(found.ratio, False, f"{found.how}; under {side}'s floor by more than {stats.MOVED_AT_MOST:.0%}")


def _said(found: stats.Repeat) -> str:
    return f"{'yes' if found.repeated else 'no'}: {found.how}"


def _pick(v: verdict.Verdict) -> str:
    if v.figure is None:
        return "not measured"
    if not v.best:
        return f"{verdict_words.NO_WINNER}: {v.why_none}"
    first = catalogue.MODEL_WORDS.get(v.best, v.best)
    named = " or ".join(catalogue.MODEL_WORDS.get(m, m) for m in v.picks) if v.picks else f"no winner ({first} first)"
    return f"{named}, {v.leader_words}{verdict_words.factor(v.ratio, v.at_least)} over {v.runner_up}" if v.ratio.passes else named


def _engine_said(v: verdict.Verdict) -> str:
    """A cell's engine in words: the model's reason where the host took every round of it, else its engine effect."""
    return _pick(v) if v.figure is not None and not v.best else _engine(v.engine_effect)


def _engine(e: engine_verdict.PairEffect | None) -> str:
    if e is None:
        return "not measured"
    first = catalogue.engine_label(e.first)
    named = first if e.named else f"no engine named ({first} first)"
    return f"{named}, {verdict_words.factor(e.advantage, e.first_floor)} over {catalogue.engine_label(e.second)}" if e.advantage.passes else named


# A run's capacity where the host took every round (perpass.judged): measured, and left out.
NO_ROUND_LEFT = "the host took every round"


def capacities(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Each server's capacity per CPU on each endpoint in runs A and B, median [range] over the passes the verdict judges
    (perpass.for_verdict), B's over A's, and whether it repeated (CAPACITY_COLUMNS); servers in A's order, then any only B ran."""
    taken = {side: perpass.rounds_host_took(p) for side, p in (("A", a), ("B", b))}
    a, b = perpass.for_verdict(a), perpass.for_verdict(b)
    servers = list(dict.fromkeys([*a["server"], *b["server"]]))
    rows = []
    for server in servers:
        for figure in CAPACITIES:
            rows_a, rows_b = (p[(p["server"] == server) & (p["figure"] == figure.key)] for p in (a, b))
            in_a, in_b = stats.across(rows_a["value"]), stats.across(rows_b["value"])
            found = stats.repeated(in_a, in_b)
            # Where the host took every round of a run, its figure was measured and left out, not missing.
            left = [side for side, found_in in (("A", in_a), ("B", in_b)) if found_in.passes == 0 and taken[side]]
            rows.append(
                {
                    "server": catalogue.label(server),
                    "figure": figure.label,
                    "A": NO_ROUND_LEFT if "A" in left else shown(in_a),
                    "B": NO_ROUND_LEFT if "B" in left else shown(in_b),
                    "B / A": "" if math.isnan(found.ratio) else f"{found.ratio:.2f}x",
                    "repeated": _left_said(left) or _said(found) + _floors_said(rows_a, rows_b),
                }
            )
    return pd.DataFrame(rows, columns=CAPACITY_COLUMNS)


def _floors_said(rows_a: pd.DataFrame, rows_b: pd.DataFrame) -> str:
    """How many of each run's passes measured only a floor (perpass.FLOORS), in words; empty where none did."""
    said = [
        f"{len(floors)} of {rows['value'].notna().sum()} passes in {side}"
        for side, rows in (("A", rows_a), ("B", rows_b))
        if (floors := perpass.floors_by_round(rows))
    ]
    return f"; only a floor in {' and '.join(said)}" if said else ""
