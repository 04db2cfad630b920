"""The verdict: for each shape of work, which model to pick, by how much, how sure, and what it costs, in one table a reader takes in
at a glance. The report and `make headline` open with it.

A model is judged on the engine that runs the most models (Jetty runs every one), where the servers differ only in how a task waits: a
difference between servers of two engines says nothing about either model. The engine's share is its own column, one model on two
engines.

Models are named where they led every other model by a clear lead in every round that measured both: their figure over each
other's (stats.in_rounds) at least stats.LEAD_AT_LEAST in the weakest round. Two passes of a round ran minutes apart, so the host's
drift over a run, which moves a pass's absolute figures by 5-12% here, cancels in their ratio; and a lead smaller than a second run
may move a figure would not name the same model twice. Where the first two models or more are within that of each other and all
lead the rest clearly, all are named: the reader may pick any, and the factor shown is the one that sets them apart from the rest. Where
no such group leads, or some round put another model ahead, or there is one round, the cell says no model can be named, and shows
the medians anyway. A figure a pass measures with an interval of its own (the wire's p99, over a steady phase of a few seconds) orders
two models in a round only where their passes' intervals lie apart (stats.apart_in_rounds): a lead inside them names no model.
A capacity that is only a floor (perpass.FLOORS: the ladder ended before the server did) bounds its model below: a lead over it
names no model, and a lead of it is "at least" its factor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .. import stats
from ..folder import catalogue
from ..stats.numbers import number
from . import perpass
from .engine_verdict import PairEffect, advantage_in_rounds, engine_cell, engine_effect
from .verdict_words import FLOORED, HOST_TOOK_EVERY_ROUND, INSIDE_INTERVALS, NO_WINNER, factor


@dataclass(frozen=True)
class Shape:
    """A shape of work and the figures that judge it: the first of `judged_on` that a pass measured, and what the winner pays
    meanwhile (`costs`, where it is another figure). `evidence` is the report's section that shows the figure."""

    work: str
    judged_on: tuple[perpass.Figure, ...]
    costs: perpass.Figure | None
    evidence: str
    # Said where none of `judged_on` was measured: the command whose run measures it.
    measured_by: str


SHAPES = (
    # What a socket holds, not PSS: PSS carries the heap pages ZGC touched, which moved a pass's figure between two levels (memory.HELD).
    Shape("many idle sockets", (perpass.HELD, perpass.PSS), perpass.THREADS, "Memory split into its parts", "make bench"),
    Shape("a steady request rate", (perpass.JSON_WIRE_P99,), perpass.CPU, "Latency under load", "make bench"),
    Shape(
        "requests waiting on a slow downstream",
        (perpass.DASHBOARD_CAPACITY,),
        None,
        "Under load: what each model buys",
        "make bench",
    ),
    # What a core serves full and what a request costs at a rate every server holds are two answers: the platform server's /json
    # request cost more CPU at the mission's rate, and a core of it served about as many as the others' once full
    # (docs/under-load.md, "Capacity per CPU").
    Shape("requests that wait on nothing", (perpass.JSON_CAPACITY,), None, "Under load: what each model buys", "make bench"),
    # Less the JIT's compilers where cpu.csv split them out: they still compiled in the steady phase, by as much as a fifth of
    # the server's CPU in some passes and not in others, and a server long up has done so (cpu.server_cpu_per_request_less_jit).
    Shape("CPU per request", (perpass.CPU_LESS_JIT, perpass.CPU), None, "Latency under load", "make bench"),
)

COLUMNS = ["work", "judged on", "the model to pick", "by how much", "its figure", "what it costs", "the engine", "evidence"]


@dataclass(frozen=True)
class Verdict:
    """One shape's cell: the models named (or why none is), the lead that named them, and the figures shown."""

    work: str
    # The figure judged, or None where none of the shape's was measured.
    figure: perpass.Figure | None
    # The models to pick, best first: one, or the first few where none led another clearly and all led the rest; empty where none
    # can be named.
    picks: tuple[str, ...]
    why_none: str
    # The last of the picks' advantage over the first model not picked across rounds (where none is picked, the first's over the
    # second's), in words `leader` over `runner_up`.
    ratio: stats.Across
    runner_up: str
    shown: str
    costs: str
    engine: str
    evidence: str
    # The model the rounds put first and the one after it, named or not (what a second run's verdict is set against), and the
    # engine effect beside them, where one model ran on two engines that both measured the figure.
    best: str = ""
    second: str = ""
    engine_effect: PairEffect | None = None
    # Where two or more models are picked, the first's advantage over the second, which did not name it alone.
    between_picks: stats.Across | None = None
    # Whether `ratio` is only a floor: the leader's figure was a floor (perpass.FLOORS) in some round it was compared in.
    at_least: bool = False

    @property
    def leader(self) -> str:
        """The model whose lead `ratio` is: the last of the picks, or the first in the rounds where none is picked."""
        return self.picks[-1] if self.picks else self.best

    @property
    def leader_words(self) -> str:
        """The leader's name as a lead's prefix, where two models are picked and the lead is the second's; empty otherwise."""
        return f"{catalogue.MODEL_WORDS.get(self.leader, self.leader)} " if len(self.picks) > 1 else ""


def verdicts(per_pass: pd.DataFrame) -> list[Verdict]:
    """A Verdict per shape, from perpass.table's rows: those perpass.for_verdict keeps (arms are judged against their own servers, and
    the rounds the host took are left out)."""
    kept, every_round = perpass.for_verdict(per_pass), catalogue.without_arms(per_pass)
    return [_verdict(shape, kept, every_round) for shape in SHAPES]


def table(per_pass: pd.DataFrame, settings: dict | None = None) -> pd.DataFrame:
    """The verdict for a reader: a row per shape of work (COLUMNS). `settings` (compare.settings of the run) says under what each
    figure was measured: the /json rate, the sockets open, the CPU budget."""
    rows = []
    for v, shape in zip(verdicts(per_pass), SHAPES, strict=True):
        judged_on = " or ".join(f.label for f in shape.judged_on) if v.figure is None else v.figure.label
        where = _where(v.figure, settings or {}) if v.figure else ""
        rows.append(
            {
                "work": v.work,
                "judged on": f"{judged_on}, {where}" if where else judged_on,
                "the model to pick": _picked(v),
                "by how much": _by_how_much(v),
                "its figure": v.shown,
                "what it costs": v.costs,
                "the engine": v.engine,
                "evidence": v.evidence,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _verdict(shape: Shape, per_pass: pd.DataFrame, every_round: pd.DataFrame) -> Verdict:
    """The shape's cell from `per_pass` (perpass.judged's rows); `every_round` is the rows before the rounds the host took were left
    out, which say why a figure they measured is missing."""
    figure = judged_on(shape, per_pass)
    if figure is None:
        taken = judged_on(shape, every_round)
        why = HOST_TOOK_EVERY_ROUND if taken is not None else f"not measured in this run ({shape.measured_by} measures it)"
        return Verdict(shape.work, taken, (), why, _NONE, "", "", "", "", shape.evidence)
    values = per_pass[per_pass["figure"] == figure.key]
    engine = _engine_of_most_models(values)
    models = _by_model(values[values["engine"] == engine])
    intervals = _intervals_by_model(values[values["engine"] == engine])
    floors = _floors_by_model(values[values["engine"] == engine])
    ranked = stats.ranked_in_rounds(models, figure.lower_is_better)
    best, rest = ranked[0], ranked[1:]

    def advantage(a: str, b: str) -> stats.Across:
        return advantage_in_rounds(models[a], models[b], figure.lower_is_better)

    def measured_apart(a: str, b: str) -> bool:
        return stats.apart_in_rounds(intervals.get(a, {}), intervals.get(b, {}), figure.lower_is_better)

    # Each other model against the best, as the best's advantage: above 1 where the best did better in that round.
    advantages = {m: advantage(best, m) for m in rest}
    picks, why_none = _picks(ranked, advantage, measured_apart), ""
    if not rest:
        why_none = f"one model on {engine}"
    elif any(a.passes == 0 for a in advantages.values()):
        picks, why_none = (), "no round measured two models with figures above 0"
    elif any(a.passes < 2 for a in advantages.values()):
        picks, why_none = (), "one round: run more passes"
    elif not picks and _picks(ranked, advantage, lambda a, b: True):
        why_none = INSIDE_INTERVALS
    elif not picks:
        overtaken = [catalogue.MODEL_WORDS.get(m, m) for m, a in advantages.items() if not a.low > 1]
        why_none = (
            f"{', '.join(overtaken)} came out ahead of {catalogue.MODEL_WORDS.get(best, best)} in some round{_why_not_two(ranked, advantage)}"
            if overtaken
            else f"no model led the others by {stats.LEAD_AT_LEAST - 1:.0%} in every round"
        )
    floored = [catalogue.MODEL_WORDS.get(m, m) for m in ranked[len(picks) :] if floors.get(m)] if picks else []
    if floored:
        picks, why_none = (), f"{_listed(floored)} {FLOORED}"
    runner_up = rest[0] if rest else ""
    # The lead that named the picks: the last one's over the first model left; where none was named, the first's over the second.
    leader, beaten = (picks[-1], ranked[len(picks)]) if picks and len(picks) < len(ranked) else (best, runner_up)
    costs = _shown(per_pass, engine, best, shape.costs) if shape.costs is not None else ""
    return Verdict(
        shape.work,
        figure,
        picks,
        why_none,
        advantage(leader, beaten) if beaten else _NONE,
        catalogue.MODEL_WORDS.get(beaten, beaten),
        f"{catalogue.MODEL_WORDS.get(best, best)}: {_shown(per_pass, engine, best, figure, named=False)}",
        costs,
        engine_cell(values, figure),
        shape.evidence,
        best,
        runner_up,
        engine_effect(values, figure),
        advantages[runner_up] if len(picks) > 1 else None,
        bool(beaten) and bool(floors.get(leader, set()) & models[beaten].keys()),
    )


def _picks(ranked: list[str], advantage, measured_apart) -> tuple[str, ...]:
    """The first models of `ranked`, as few as can be, each of which led every model after them clearly in every round
    (stats.clear_lead) and was measured apart from it; empty where no such group leaves a model behind. Where the first two or more
    are closer than that to each other, they are named together: which of them to pick the run cannot say, which to avoid it can."""
    for n in range(1, len(ranked)):
        picked, left = ranked[:n], ranked[n:]
        if all(stats.clear_lead(advantage(p, m)) and measured_apart(p, m) for p in picked for m in left):
            return tuple(picked)
    return ()


def _why_not_two(ranked: list[str], advantage) -> str:
    """Why the first two of `ranked` were not named together either, where there is a third: the models after them that the two did
    not both lead clearly in every round (stats.clear_lead; "shown to", since a lead of a floor is only at least its factor).
    Empty where there is no third, or the two led every model after them (the intervals then named none: INSIDE_INTERVALS)."""
    if len(ranked) <= 2:
        return ""
    two, left = ranked[:2], ranked[2:]
    trailing = [catalogue.MODEL_WORDS.get(m, m) for m in left if not all(stats.clear_lead(advantage(p, m)) for p in two)]
    if not trailing:
        return ""
    first, second = (catalogue.MODEL_WORDS.get(m, m) for m in two)
    return f", and {first} and {second} were not both shown to lead {_listed(trailing)} by {stats.LEAD_AT_LEAST - 1:.0%} in every round"


def _picked(v: Verdict) -> str:
    """The model to pick, in words: one; two or more, with why all of them; or why none can be named."""
    if not v.picks:
        return f"{NO_WINNER}: {v.why_none}"
    words = [catalogue.MODEL_WORDS.get(m, m) for m in v.picks]
    if len(words) == 1:
        return words[0]
    none = "neither led the other" if len(words) == 2 else "none of them led all the others"
    return f"{_listed(words)}: {none} by {stats.LEAD_AT_LEAST - 1:.0%} in every round"


def _by_how_much(v: Verdict) -> str:
    """The lead that named the picks; where two or more were named, the first's over the second before it."""
    lead = _ratio(v.ratio, v.runner_up, v.at_least)
    if v.between_picks is None or not lead:
        return lead
    first, second = (catalogue.MODEL_WORDS.get(m, m) for m in v.picks[:2])
    return f"{v.leader_words}{lead}; {first} {factor(v.between_picks)} over {second}"


_NONE = stats.Across(math.nan, math.nan, math.nan, 0)


def _where(figure: perpass.Figure, settings: dict) -> str:
    """The settings a figure was measured under, in words: at the /json rate, with the sockets open, on the curve's CPU budget."""
    said = []
    if "jsonRatePerSecond" in figure.settings and settings.get("jsonRatePerSecond"):
        by = f" offered by {settings['jsonGenerator']}" if "jsonGenerator" in figure.settings and settings.get("jsonGenerator") else ""
        said.append(f"at {settings['jsonRatePerSecond']:,}/s{by}")
    if "idleSockets" in figure.settings and settings.get("idleSockets"):
        said.append(f"{settings['idleSockets']:,} sockets open")
    if "curveServerCpuBudget" in figure.settings and settings.get("curveServerCpuBudget"):
        said.append(f"on {settings['curveServerCpuBudget']:g} of a CPU")
    return ", ".join(said)


def judged_on(shape: Shape, per_pass: pd.DataFrame) -> perpass.Figure | None:
    """The figure `shape` is judged on in `per_pass`: the first of its `judged_on` some pass measured; None where none was."""
    return next((f for f in shape.judged_on if per_pass.loc[per_pass["figure"] == f.key, "value"].notna().any()), None)


def _engine_of_most_models(values: pd.DataFrame) -> str:
    """The engine whose servers run the most models (ties: the first to run), where a model effect is read."""
    measured = values[values["value"].notna()]
    counts = measured.groupby("engine", sort=False)["model"].nunique()
    return str(counts.idxmax())


def _floors_by_model(values: pd.DataFrame) -> dict[str, set[tuple[str, int]]]:
    """{model: the (run folder, round) keys where its figure was only a floor} (perpass.floors_by_round)."""
    return {model: perpass.floors_by_round(group) for model, group in values.groupby("model", sort=False)}


def _by_model(values: pd.DataFrame) -> dict[str, dict[tuple[str, int], float]]:
    """{model: {(run folder, round): value}} of one engine's passes that measured the figure."""
    measured = values[values["value"].notna()]
    return {model: perpass.by_round(group) for model, group in measured.groupby("model", sort=False)}


def _intervals_by_model(values: pd.DataFrame) -> dict[str, dict[tuple[str, int], tuple[float, float]]]:
    """{model: {(run folder, round): (low, high)}}: the passes' own intervals (perpass.intervals_by_round), where they have them."""
    measured = values[values["value"].notna()]
    return {model: perpass.intervals_by_round(group) for model, group in measured.groupby("model", sort=False)}


def _shown(per_pass: pd.DataFrame, engine: str, model: str, figure: perpass.Figure, named: bool = True) -> str:
    """The model's `figure` on `engine`: (its name,) the median across passes with its range, and its unit."""
    rows = per_pass[(per_pass["figure"] == figure.key) & (per_pass["engine"] == engine) & (per_pass["model"] == model)]
    found = stats.across(rows["value"])
    if found.passes == 0:
        return ""
    interval = f" [{number(found.low)}, {number(found.high)}]" if found.has_interval else ", one pass"
    name = f"{figure.label.split(' (')[0]}: " if named else ""
    return f"{name}{number(found.median)} {figure.unit}{interval}"


def _ratio(ratio: stats.Across, runner_up: str, at_least: bool = False) -> str:
    if ratio.passes == 0:
        return ""
    return f"{factor(ratio, at_least)} over {runner_up}, in {ratio.passes} round{'s' if ratio.passes > 1 else ''}"


def sentence(per_pass: pd.DataFrame) -> str:
    """The verdict in one sentence: each model named, for the shapes it wins, by its factor across rounds; then the shapes no model
    could be named for."""
    found = verdicts(per_pass)
    won: dict[str, list[str]] = {}
    for v in found:
        if v.picks:
            won.setdefault(_listed([catalogue.MODEL_WORDS.get(m, m) for m in v.picks]), []).append(
                f"{v.work} ({v.leader_words}{factor(v.ratio, v.at_least)} over {v.runner_up} in {v.figure.label.split(' (')[0]})"
            )
    unnamed = [v.work for v in found if not v.picks]
    parts = [f"pick {model} for {' and '.join(works)}" for model, works in won.items()]
    if unnamed:
        parts.append(f"no model can be named for {_listed(unnamed)} (the verdict's table says why)")
    text = "; ".join(parts) if parts else "no model can be named for any shape of work in this run"
    return text[0].upper() + text[1:] + "."


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"
