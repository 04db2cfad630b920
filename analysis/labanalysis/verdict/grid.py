"""The engine x model grid: a server is an engine (its HTTP and WebSocket stack) running a model (how a task waits),
so a difference between two servers means something only where one of the two is held fixed.

- The model effect is read along an engine's row: the same engine, only the waiting differs.
- The engine effect is read down a model's column: the same model, another stack.

The split of a socket's memory into its model's floor and the rest is socket_split's; the report's opening sentence, opening's.

Every figure here is per pass (perpass: one server run with the JFR stream that ended ok, from every run folder pooled), then a
median over the passes with their range as the interval (stats.across). A difference is A's median less B's, with the
conservative interval [min A - max B, max A - min B]; with one pass on either side there is no interval and no conclusion.
Servers are told apart by the engine and model their run recorded, never by name.

An arm (a server run without some of the lab's changes to its engine, `make bench ONLY=server:change`) is left out of the grid and
its effects, which compare engines as the lab runs them; arms.change_effects compares each arm with its own server instead.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import pandas as pd

from .. import stats
from ..folder import catalogue
from ..folder.run import Run
from ..stats.numbers import number, shown
from . import perpass

KIB = 1 << 10

# The grid's headline figures, by their keys (perpass computes each, once per pass; a table shows each one's label). Memory per
# socket is what it holds (the live heap, native and kernel memory), RSS and PSS from memory.csv's snapshots after a full GC.
HELD = perpass.HELD.key
PSS = perpass.PSS.key
LIVE_HEAP = perpass.LIVE_HEAP.key
RSS = perpass.RSS.key
JSON_P99 = perpass.JSON_P99.key
JSON_WIRE_P99 = perpass.JSON_WIRE_P99.key
DASHBOARD_P99 = perpass.DASHBOARD_P99.key
THREADS = perpass.THREADS.key
CPU = perpass.CPU.key
# What a model buys under load, from a run with the latency-throughput curve (make curve): a higher rate is the better.
JSON_SUSTAINED = perpass.JSON_SUSTAINED.key
DASHBOARD_SUSTAINED = perpass.DASHBOARD_SUSTAINED.key
BUYS = {JSON_SUSTAINED, DASHBOARD_SUSTAINED}
HEADLINES = [HELD, PSS, RSS, LIVE_HEAP, JSON_P99, JSON_WIRE_P99, DASHBOARD_P99, THREADS, CPU, JSON_SUSTAINED, DASHBOARD_SUSTAINED]
UNITS = {f.key: f.unit for f in perpass.FIGURES}


# ---- per pass --------------------------------------------------------------------------------------


def passes(runs: list[Run]) -> pd.DataFrame:
    """One row per pass and figure (perpass.table): only the grid's HEADLINES, of the rounds the verdict judges (perpass.judged)."""
    table = perpass.judged(perpass.table(runs))
    return table[table["figure"].isin(HEADLINES)].reset_index(drop=True)


def headlines(passes: pd.DataFrame) -> list[str]:
    """The HEADLINES some pass measured: a run without the latency-throughput curve has no sustained rates, and the grid leaves
    them out."""
    measured = set(passes.loc[passes["value"].notna(), "figure"])
    return [f for f in HEADLINES if f in measured]


def per_server(passes: pd.DataFrame) -> pd.DataFrame:
    """Per server and figure: the median over its passes, the range (low, high; NaN with fewer than two passes), and how many passes."""
    return perpass.per_server(passes)


# ---- the grid --------------------------------------------------------------------------------------


def engines(passes: pd.DataFrame) -> list[str]:
    """The engines of `passes`, in the order their servers ran (the harness runs them in the catalogue's order)."""
    return list(dict.fromkeys(passes["engine"]))


def models(passes: pd.DataFrame) -> list[str]:
    """The models the runs ran, in the catalogue's order, then any other a run recorded."""
    ran = set(passes["model"])
    return [*(m for m in catalogue.MODELS if m in ran), *sorted(ran - set(catalogue.MODELS))]


def servers_grid(passes: pd.DataFrame) -> pd.DataFrame:
    """Engines as rows, models as columns: which server fills each cell, or why none does."""
    passes = catalogue.without_arms(passes)
    table = pd.DataFrame("", index=pd.Index(engines(passes), name="engine"), columns=models(passes))
    servers = passes.drop_duplicates("server")
    for engine in table.index:
        for model in table.columns:
            here = servers[(servers["engine"] == engine) & (servers["model"] == model)]
            table.loc[engine, model] = "; ".join(here["label"]) or _empty(engine, model)
    return table


def figures_grid(passes: pd.DataFrame) -> pd.DataFrame:
    """Rows (figure's label, engine), columns the models: each server's median, its range over passes and how many, or why the cell
    is empty."""
    passes = catalogue.without_arms(passes)
    summary = per_server(passes)
    rows = {}
    for figure in headlines(passes):
        for engine in engines(passes):
            row = {}
            for model in models(passes):
                here = summary[(summary["figure"] == figure) & (summary["engine"] == engine) & (summary["model"] == model)]
                cells = [_cell(r) for _, r in here.iterrows()]
                row[model] = "; ".join(f"{s}: {c}" for s, c in zip(here["server"], cells, strict=True)) if len(cells) > 1 else "".join(cells)
                row[model] = row[model] or _empty(engine, model)
            rows[(perpass.label(figure), engine)] = row
    index = pd.MultiIndex.from_tuples(list(rows), names=["figure", "engine"]) if rows else pd.MultiIndex.from_tuples([], names=["figure", "engine"])
    return pd.DataFrame(list(rows.values()), index=index, columns=models(passes))


def _empty(engine: str, model: str) -> str:
    return f"({catalogue.NO_SUCH_MODE[(engine, model)]})" if (engine, model) in catalogue.NO_SUCH_MODE else "no server"


def _cell(row: pd.Series) -> str:
    return shown(stats.Across(row["median"], row["low"], row["high"], int(row["passes"])))


# ---- effects ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """A's figure less B's, from their per-pass values: the difference of the medians, its conservative interval
    [min A - max B, max A - min B] (NaN unless each side has two passes or more), and A's median over B's."""

    median: float
    low: float
    high: float
    ratio: float
    a_passes: int
    b_passes: int

    @property
    def has_interval(self) -> bool:
        return self.a_passes >= 2 and self.b_passes >= 2

    def shows(self, a: str, b: str) -> str:
        """What the difference shows, in words: no conclusion from one pass, none when the interval straddles 0."""
        if not self.a_passes or not self.b_passes:
            return "not measured"
        if not self.has_interval:
            return f"one pass only ({a}: {self.a_passes}, {b}: {self.b_passes}): no interval, no conclusion drawn"
        # The one judge (stats.range_order), of the difference's interval against 0: A's range against B's.
        found = stats.range_order((self.low, self.high), (0.0, 0.0))
        if found == 0:
            return "no difference shown: the interval straddles 0"
        return f"{a} {'higher' if found == 1 else 'lower'} than {b} in every pair of passes"


def difference(a_values, b_values) -> Difference:
    """The Difference between two servers' per-pass values of one figure (NaNs are passes that did not measure it)."""
    a, b = pd.Series(a_values, dtype=float).dropna(), pd.Series(b_values, dtype=float).dropna()
    if a.empty or b.empty:
        return Difference(math.nan, math.nan, math.nan, math.nan, len(a), len(b))
    many = len(a) >= 2 and len(b) >= 2
    a_median, b_median = a.median(), b.median()
    return Difference(
        median=a_median - b_median,
        low=a.min() - b.max() if many else math.nan,
        high=a.max() - b.min() if many else math.nan,
        # A factor means something between two positive amounts only (a slope may come out at or below 0).
        ratio=a_median / b_median if a_median > 0 and b_median > 0 else math.nan,
        a_passes=len(a),
        b_passes=len(b),
    )


EFFECT_COLUMNS = [
    "figure",
    "within",
    "A",
    "B",
    "A server",
    "B server",
    "A median",
    "B median",
    "difference",
    "low",
    "high",
    "ratio",
    "passes",
    "shows",
]


def model_effects(passes: pd.DataFrame, figures: list[str] | None = None) -> pd.DataFrame:
    """Along each engine that runs two models or more: every pair of its models (the catalogue's order, A less B), every figure of
    `figures` (the headline figures unless told).

    `within` is the engine; `A` and `B` are the models. Empty when no engine runs two models.
    """
    passes = catalogue.without_arms(passes)
    rows = []
    for engine in engines(passes):
        here = passes[passes["engine"] == engine]
        present = [m for m in models(passes) if (here["model"] == m).any()]
        for a, b in itertools.combinations(present, 2):
            rows += effects(passes, engine, a, b, here[here["model"] == a], here[here["model"] == b], figures)
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def engine_effects(passes: pd.DataFrame, figures: list[str] | None = None) -> pd.DataFrame:
    """Down each model that runs on two engines or more: every pair of its engines (in declaration order, A less B), every figure of
    `figures` (the headline figures unless told).

    `within` is the model; `A` and `B` are the engines. Empty when no model runs on two engines.
    """
    passes = catalogue.without_arms(passes)
    rows = []
    for model in models(passes):
        here = passes[passes["model"] == model]
        present = [e for e in engines(passes) if (here["engine"] == e).any()]
        for a, b in itertools.combinations(present, 2):
            rows += effects(passes, model, a, b, here[here["engine"] == a], here[here["engine"] == b], figures)
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def effects(
    passes: pd.DataFrame, within: str, a: str, b: str, a_passes: pd.DataFrame, b_passes: pd.DataFrame, figures: list[str] | None
) -> list[dict]:
    rows = []
    # One cell is normally one server; two servers in one cell are compared each with each, never pooled.
    for a_server, b_server in itertools.product(a_passes["server"].unique(), b_passes["server"].unique()):
        for figure in headlines(passes) if figures is None else figures:
            a_values = a_passes[(a_passes["server"] == a_server) & (a_passes["figure"] == figure)]["value"]
            b_values = b_passes[(b_passes["server"] == b_server) & (b_passes["figure"] == figure)]["value"]
            d = difference(a_values, b_values)
            rows.append(
                {
                    "figure": figure,
                    "within": within,
                    "A": a,
                    "B": b,
                    "A server": a_server,
                    "B server": b_server,
                    "A median": a_values.median(),
                    "B median": b_values.median(),
                    "difference": d.median,
                    "low": d.low,
                    "high": d.high,
                    "ratio": d.ratio,
                    "passes": f"{d.a_passes} and {d.b_passes}",
                    "shows": d.shows(a, b),
                }
            )
    return rows


def effects_table(effects: pd.DataFrame) -> pd.DataFrame:
    """The effects for a reader: one row each, A against B, the medians, the difference with its interval, the ratio, what it shows."""
    rows = []
    for _, e in effects.iterrows():
        rows.append(
            {
                "figure": perpass.label(e["figure"]),
                "within": e["within"],
                "A against B": f"{e['A']} against {e['B']}",
                "A, B (medians)": f"{number(e['A median'])}, {number(e['B median'])}",
                "A - B": number(e["difference"]),
                "interval": f"[{number(e['low'])}, {number(e['high'])}]" if not math.isnan(e["low"]) else "none",
                "A / B": f"{number(e['ratio'])}x" if not math.isnan(e["ratio"]) else "",
                "passes": e["passes"],
                "shows": e["shows"],
            }
        )
    return pd.DataFrame(rows)


def missing_model_effect(passes: pd.DataFrame) -> str:
    """Why there is no model effect (no engine runs two models), naming what each engine runs; empty when there is one."""
    if not model_effects(passes).empty:
        return ""
    ran = "; ".join(f"{engine} ran {' and '.join(_models_on(passes, engine)) or 'nothing'} only" for engine in engines(passes))
    return f"no engine ran two models in these runs ({ran or 'no server ran'})"


def missing_engine_effect(passes: pd.DataFrame) -> str:
    """Why there is no engine effect (no model runs on two engines), naming where each model ran; empty when there is one."""
    if not engine_effects(passes).empty:
        return ""
    ran = "; ".join(
        f"{catalogue.MODEL_WORDS.get(model, model)} on {' and '.join(sorted(set(passes.loc[passes['model'] == model, 'engine'])))} only"
        for model in models(passes)
        if (passes["model"] == model).any()
    )
    return f"no model ran on two engines in these runs ({ran or 'no server ran'})"


def _models_on(passes: pd.DataFrame, engine: str) -> list[str]:
    return [catalogue.MODEL_WORDS.get(m, m) for m in models(passes) if ((passes["engine"] == engine) & (passes["model"] == m)).any()]
