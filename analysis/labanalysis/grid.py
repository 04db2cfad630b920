"""The engine x model grid: a server is an engine (its HTTP and WebSocket stack) running a model (how a task waits),
so a difference between two servers means something only where one of the two is held fixed.

- The model effect is read along an engine's row: the same engine, only the waiting differs.
- The engine effect is read down a model's column: the same model, another stack.
- A server's memory per socket splits into its model's floor (`make floor`: a parked task with no
  server around it) and the rest, which is the engine's and its WebSocket session's.

Every figure here is per pass (perpass: one server run with the JFR stream that ended ok, from every run folder pooled), then a
median over the passes with their range as the interval (repeats.across). A difference is A's median less B's, with the
conservative interval [min A - max B, max A - min B]; with one pass on either side there is no interval and no conclusion.
Servers are told apart by the engine and model their run recorded, never by name.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import catalogue, floor, memory, perpass, repeats
from .run import Run
from .show import number

KIB = 1 << 10

# The grid's headline figures (perpass computes each, once per pass). Memory per socket is the live heap and RSS from memory.csv's
# snapshots after a full GC; for a run from before memory.csv, RSS through its step plateaus, and no live heap.
LIVE_HEAP = perpass.LIVE_HEAP.name
RSS = perpass.RSS.name
JSON_P99 = perpass.JSON_P99.name
JSON_WIRE_P99 = perpass.JSON_WIRE_P99.name
DASHBOARD_P99 = perpass.DASHBOARD_P99.name
THREADS = perpass.THREADS.name
CPU = perpass.CPU.name
# What a model buys under load, from a run with the latency-throughput curve (make curve): a higher rate is the better.
JSON_SUSTAINED = perpass.JSON_SUSTAINED.name
DASHBOARD_SUSTAINED = perpass.DASHBOARD_SUSTAINED.name
BUYS = {JSON_SUSTAINED, DASHBOARD_SUSTAINED}
HEADLINES = [LIVE_HEAP, RSS, JSON_P99, JSON_WIRE_P99, DASHBOARD_P99, THREADS, CPU, JSON_SUSTAINED, DASHBOARD_SUSTAINED]
UNITS = {f.name: f.unit for f in perpass.FIGURES}

MODEL_WORDS = {"coroutine": "coroutines", "virtual": "virtual threads", "platform": "platform threads"}

# Memory per socket as `make floor` names its measures (memory.MEASURES names them the same).
PER_SOCKET = ["RSS", "PSS", "live heap"]

FLOOR_DEPTH = 0  # a task parked directly: the model's own cost
DEEP_DEPTH = 20  # parked 20 frames deep: what a real handler's stack adds, said beside it


# ---- per pass --------------------------------------------------------------------------------------


def passes(runs: list[Run]) -> pd.DataFrame:
    """One row per pass and figure (perpass.table): only the grid's HEADLINES."""
    table = perpass.table(runs)
    return table[table["figure"].isin(HEADLINES)].reset_index(drop=True)


def headlines(passes: pd.DataFrame) -> list[str]:
    """The HEADLINES some pass measured: a run from before memory.csv has no live heap per socket, and the grid leaves it out."""
    measured = set(passes.loc[passes["value"].notna(), "figure"])
    return [f for f in HEADLINES if f in measured]


def per_server(passes: pd.DataFrame) -> pd.DataFrame:
    """Per server and figure: the median over its passes, the range (low, high; NaN with fewer than two passes), and how many passes."""
    return perpass.per_server(passes)


def per_socket(runs: list[Run]) -> pd.DataFrame:
    """Per server and measure (RSS, PSS, live heap): bytes per idle socket, the median over its passes with their range.

    Each pass's figure is memory.per_socket_fit's slope.
    """
    rows = [
        {**base, "figure": measure, "value": memory.per_socket_fit(server, measure).slope}
        for _, server, base in repeats.each_pass(runs)
        for measure in PER_SOCKET
    ]
    table = per_server(pd.DataFrame(rows, columns=[*repeats.PASS_COLUMNS, "figure", "value"]))
    return table.rename(columns={"figure": "measure"})


# ---- the grid --------------------------------------------------------------------------------------


def engines(passes: pd.DataFrame) -> list[str]:
    """The engines of `passes`, in the order their servers ran (the harness runs them in the catalogue's order)."""
    return list(dict.fromkeys(passes["engine"]))


def models(passes: pd.DataFrame) -> list[str]:
    """Every model the catalogue knows, then any other a run recorded."""
    return [*catalogue.MODELS, *sorted(set(passes["model"]) - set(catalogue.MODELS))]


def servers_grid(passes: pd.DataFrame) -> pd.DataFrame:
    """Engines as rows, models as columns: which server fills each cell, or why none does."""
    table = pd.DataFrame("", index=pd.Index(engines(passes), name="engine"), columns=models(passes))
    servers = passes.drop_duplicates("server")
    for engine in table.index:
        for model in table.columns:
            here = servers[(servers["engine"] == engine) & (servers["model"] == model)]
            table.loc[engine, model] = "; ".join(here["label"]) or _empty(engine, model)
    return table


def figures_grid(passes: pd.DataFrame) -> pd.DataFrame:
    """Rows (figure, engine), columns the models: each server's median, its range over passes and how many, or why the cell is empty."""
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
            rows[(figure, engine)] = row
    index = pd.MultiIndex.from_tuples(list(rows), names=["figure", "engine"]) if rows else pd.MultiIndex.from_tuples([], names=["figure", "engine"])
    return pd.DataFrame(list(rows.values()), index=index, columns=models(passes))


def _empty(engine: str, model: str) -> str:
    return f"({catalogue.NO_SUCH_MODE[(engine, model)]})" if (engine, model) in catalogue.NO_SUCH_MODE else "no server"


def _cell(row: pd.Series) -> str:
    if row["passes"] == 0:
        return "not measured"
    if row["passes"] == 1:
        return f"{number(row['median'])} (one pass, no interval)"
    return f"{number(row['median'])} [{number(row['low'])}, {number(row['high'])}] over {row['passes']} passes"


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
        if self.low <= 0 <= self.high:
            return "no difference shown: the interval straddles 0"
        return f"{a} {'higher' if self.low > 0 else 'lower'} than {b} in every pair of passes"


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
    rows = []
    for engine in engines(passes):
        here = passes[passes["engine"] == engine]
        present = [m for m in models(passes) if (here["model"] == m).any()]
        for a, b in itertools.combinations(present, 2):
            rows += _effects(passes, engine, a, b, here[here["model"] == a], here[here["model"] == b], figures)
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def engine_effects(passes: pd.DataFrame, figures: list[str] | None = None) -> pd.DataFrame:
    """Down each model that runs on two engines or more: every pair of its engines (in declaration order, A less B), every figure of
    `figures` (the headline figures unless told).

    `within` is the model; `A` and `B` are the engines. Empty when no model runs on two engines.
    """
    rows = []
    for model in models(passes):
        here = passes[passes["model"] == model]
        present = [e for e in engines(passes) if (here["engine"] == e).any()]
        for a, b in itertools.combinations(present, 2):
            rows += _effects(passes, model, a, b, here[here["engine"] == a], here[here["engine"] == b], figures)
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def _effects(
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
                "figure": e["figure"],
                "within": e["within"],
                "A against B": f"{e['A']} against {e['B']}",
                "A, B (medians)": f"{number(e['A median'])}, {number(e['B median'])}",
                "A - B": number(e["difference"]),
                "interval": f"[{number(e['low'])}, {number(e['high'])}]" if e["low"] == e["low"] else "none",
                "A / B": f"{number(e['ratio'])}x" if e["ratio"] == e["ratio"] else "",
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
        f"{MODEL_WORDS.get(model, model)} on {' and '.join(sorted(set(passes.loc[passes['model'] == model, 'engine'])))} only"
        for model in models(passes)
        if (passes["model"] == model).any()
    )
    return f"no model ran on two engines in these runs ({ran or 'no server ran'})"


def _models_on(passes: pd.DataFrame, engine: str) -> list[str]:
    return [MODEL_WORDS.get(m, m) for m in models(passes) if ((passes["engine"] == engine) & (passes["model"] == m)).any()]


# ---- the opening sentence --------------------------------------------------------------------------


def summary_sentence(passes: pd.DataFrame, figure: str | None = None) -> str:
    """One sentence: what the model costs and what the engine costs in `figure`, each with its figure and how sure it is.

    Without a figure: the live heap per socket where the passes measured it (what the sockets keep, after a full GC), else RSS.

    The model's cost is read on the engine that runs the most models, as the largest difference between
    two of them; the engine's as the largest difference between two engines under one model. A cost this
    data cannot show is said to be missing, and why.
    """
    if figure is None:
        figure = LIVE_HEAP if passes.loc[passes["figure"] == LIVE_HEAP, "value"].notna().any() else RSS
    unit = UNITS.get(figure, "")
    # A cost is the larger figure's; a rate the larger figure buys.
    verb = "buys" if figure in BUYS else "costs"
    model = _largest(model_effects(passes), figure, by_most_models=True)
    engine = _largest(engine_effects(passes), figure)
    if model is not None:
        model_part = (
            f"the model {verb} up to {number(model['difference'])} {unit}: on {model['within']}, "
            f"{MODEL_WORDS.get(model['A'], model['A'])} {number(model['A median'])} against "
            f"{MODEL_WORDS.get(model['B'], model['B'])} {number(model['B median'])} {unit} {_how_sure(model, unit)}"
        )
    else:
        model_part = f"the model's cost is not measured: {missing_model_effect(passes) or f'no {figure} to compare'}"
    if engine is not None:
        engine_part = (
            f"the engine {verb} {number(engine['difference'])} {unit}: {MODEL_WORDS.get(engine['within'], engine['within'])} "
            f"on {engine['A']} {number(engine['A median'])} against on {engine['B']} {number(engine['B median'])} {unit} {_how_sure(engine, unit)}"
        )
    else:
        engine_part = f"the engine's cost is not measured: {missing_engine_effect(passes) or f'no {figure} to compare'}"
    return f"In {figure.split(' (')[0]}, {model_part}; {engine_part}."


def _largest(effects: pd.DataFrame, figure: str, by_most_models: bool = False) -> pd.Series | None:
    """The effect of `figure` with the largest difference, turned so that A is the costlier; None if there is none."""
    rows = effects[(effects["figure"] == figure) & effects["difference"].notna()]
    if rows.empty:
        return None
    if by_most_models:
        counts = {w: len(set(g["A"]) | set(g["B"])) for w, g in rows.groupby("within", sort=False)}
        rows = rows[rows["within"] == max(counts, key=counts.get)]
    row = rows.loc[rows["difference"].abs().idxmax()].copy()
    if row["difference"] < 0:
        row["A"], row["B"] = row["B"], row["A"]
        row["A median"], row["B median"] = row["B median"], row["A median"]
        row["difference"], row["low"], row["high"] = -row["difference"], -row["high"], -row["low"]
        row["ratio"] = 1 / row["ratio"] if row["ratio"] == row["ratio"] else math.nan
        row["passes"] = " and ".join(reversed(row["passes"].split(" and ")))
    return row


def _how_sure(effect: pd.Series, unit: str) -> str:
    if effect["low"] != effect["low"]:
        passes = "one pass each" if effect["passes"] == "1 and 1" else f"{effect['passes']} passes"
        return f"({passes}: no interval, so no conclusion)"
    interval = f"[{number(effect['low'])}, {number(effect['high'])}] {unit}"
    if effect["low"] <= 0 <= effect["high"]:
        return f"(median of {effect['passes']} passes, interval {interval}: no difference shown)"
    return f"(median of {effect['passes']} passes, interval {interval})"


# ---- memory per socket: the model's floor and the rest ---------------------------------------------


def load_floor(folder: str | Path | None) -> tuple[pd.DataFrame | None, str]:
    """`make floor`'s per-task table from `folder`, and a line saying where it came from or why there is none."""
    if not folder:
        return None, (
            "No `make floor` folder beside this run: run `make floor`, then render this report again "
            "(delete the run's report-inputs.json so that the new folder is picked up)."
        )
    folder = Path(folder)
    return floor.per_task(folder), f"The floor is `{folder.name}`'s."


DECOMPOSITION_COLUMNS = [
    "server", "label", "engine", "model", "measure", "per socket", "per socket low", "per socket high", "passes",
    "floor", "floor low", "floor high", "floor repeats", "floor at depth 20", "rest", "rest low", "rest high", "note",
]  # fmt: skip


def decomposition(per_socket_table: pd.DataFrame, floor: pd.DataFrame | None, jdk) -> pd.DataFrame:
    """Per server and measure: its bytes per idle socket, its model's floor per parked task on `jdk` (depth 0), and the rest.

    The rest (per socket less floor) is the engine's and its WebSocket session's: the connection,
    its buffers and pipeline, and whatever the engine keeps per session. Its interval is the
    conservative one, [per socket low - floor high, per socket high - floor low], where both have a
    range. The depth-20 floor is given beside it: a task parked 20 frames deep costs more, and a
    handler's wait may be that deep. Without a floor, every per-socket figure a pass measured is still
    given, with a note that says what is missing.
    """
    rows = []
    measures = PER_SOCKET if floor is None else [m for m in PER_SOCKET if floor["measure"].isin(FLOOR_PARTS[m]).any()]
    wanted = per_socket_table[per_socket_table["measure"].isin(measures)]
    if floor is None:
        wanted = wanted[wanted["passes"] > 0]  # nothing to split, so nothing to say of a figure no pass measured
    for _, s in wanted.iterrows():
        base = _floor_row(floor, jdk, s["model"], s["measure"], FLOOR_DEPTH)
        deep = _floor_row(floor, jdk, s["model"], s["measure"], DEEP_DEPTH)
        both = s["low"] == s["low"] and base is not None and base["low"] == base["low"]
        rows.append(
            {
                "server": s["server"],
                "label": s["label"],
                "engine": s["engine"],
                "model": s["model"],
                "measure": s["measure"],
                "per socket": s["median"],
                "per socket low": s["low"],
                "per socket high": s["high"],
                "passes": s["passes"],
                "floor": base["median"] if base is not None else math.nan,
                "floor low": base["low"] if base is not None else math.nan,
                "floor high": base["high"] if base is not None else math.nan,
                "floor repeats": base["repeats"] if base is not None else 0,
                "floor at depth 20": deep["median"] if deep is not None else math.nan,
                "rest": s["median"] - base["median"] if base is not None else math.nan,
                "rest low": s["low"] - base["high"] if both else math.nan,
                "rest high": s["high"] - base["low"] if both else math.nan,
                "note": _decomposition_note(floor, jdk, s, base),
            }
        )
    return pd.DataFrame(rows, columns=DECOMPOSITION_COLUMNS)


# What a parked task holds, as make floor measures it, against each per-socket measure. A task's RSS in a floor JVM
# is not its cost: for the models whose tasks live on the heap it is the heap pages the warm-up's garbage touched
# (floor.recommendations says the same), so RSS and PSS are set against the live heap plus the thread memory the
# JVM commits for the task (NMT's Thread category: a platform thread's stack, next to nothing otherwise).
FLOOR_PARTS = {
    "RSS": ("live heap", "NMT thread committed"),
    "PSS": ("live heap", "NMT thread committed"),
    "live heap": ("live heap",),
}


def _floor_row(floor: pd.DataFrame | None, jdk, model: str, measure: str, depth: int) -> pd.Series | None:
    """The floor set against `measure`: the sum of its parts (FLOOR_PARTS), low with low and high with high."""
    if floor is None:
        return None
    here = floor[(floor["jdk"].map(repeats.feature) == repeats.feature(jdk)) & (floor["model"] == model) & (floor["depth"] == depth)]
    parts = here[here["measure"].isin(FLOOR_PARTS[measure])]
    if len(parts) != len(FLOOR_PARTS[measure]):
        return None
    low, high = parts["low"], parts["high"]
    return pd.Series(
        {
            "median": parts["median"].sum(),
            "low": low.sum() if low.notna().all() else math.nan,
            "high": high.sum() if high.notna().all() else math.nan,
            "repeats": parts["repeats"].min(),
        }
    )


def _decomposition_note(floor: pd.DataFrame | None, jdk, server: pd.Series, base: pd.Series | None) -> str:
    if server["passes"] == 0:
        return "not measured in these runs"
    if floor is None:
        return "no floor: run make floor"
    if base is None:
        return f"the floor has no {MODEL_WORDS.get(server['model'], server['model'])} at depth {FLOOR_DEPTH} on JDK {jdk}"
    if server["passes"] == 1:
        return "one pass: no interval"
    return ""


def decomposition_table(decomposed: pd.DataFrame) -> pd.DataFrame:
    """The decomposition for a reader, in bytes: per socket, floor (depth 0 and 20), the rest, and each one's range."""

    def with_range(median, low, high) -> str:
        return f"{number(median)} [{number(low)}, {number(high)}]" if low == low else number(median)

    rows = []
    for _, d in decomposed.iterrows():
        rows.append(
            {
                "server": d["label"],
                "engine": d["engine"],
                "model": d["model"],
                "measure": d["measure"],
                "per socket (bytes)": with_range(d["per socket"], d["per socket low"], d["per socket high"]),
                "model's floor, depth 0 (bytes)": with_range(d["floor"], d["floor low"], d["floor high"]),
                "floor at depth 20 (bytes)": number(d["floor at depth 20"]),
                "rest: engine + WebSocket session (bytes)": with_range(d["rest"], d["rest low"], d["rest high"]),
                "passes": d["passes"],
                "note": d["note"],
            }
        )
    return pd.DataFrame(rows)
