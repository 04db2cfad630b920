"""The engine x model grid: a server is an engine (its HTTP and WebSocket stack) running a model (how a task waits),
so a difference between two servers means something only where one of the two is held fixed.

- The model effect is read along an engine's row: the same engine, only the waiting differs.
- The engine effect is read down a model's column: the same model, another stack.
- A server's memory per socket splits into its model's floor (`make floor`: a parked task with no
  server around it) and the rest, which is the engine's and its WebSocket session's.

Every figure here is per pass (one server run with the JFR stream that ended ok, from every run folder
pooled), then a median over the passes with their range as the interval: with a handful of passes the
honest interval is the range (see repeats). A difference is A's median less B's, with the conservative
interval [min A - max B, max A - min B]; with one pass on either side there is no interval and no
conclusion. Servers are told apart by the engine and model their run recorded, never by name.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import catalogue, floor, latency, memory, provenance, runtime
from .run import Run, ServerRun
from .show import number

KIB = 1 << 10

# The headline figures, each computed once per pass by the module that owns its statistic.
MEMORY = "memory per idle socket (KiB)"
JSON_P99 = "/json p99 (ms)"
DASHBOARD_P99 = "/dashboard p99 (ms)"
THREADS = "peak OS threads"
CPU = "JVM CPU per /json request (µs)"
HEADLINES = [MEMORY, JSON_P99, DASHBOARD_P99, THREADS, CPU]
UNITS = {MEMORY: "KiB", JSON_P99: "ms", DASHBOARD_P99: "ms", THREADS: "threads", CPU: "µs"}

MODEL_WORDS = {"coroutine": "coroutines", "virtual": "virtual threads", "platform": "platform threads"}

# Memory per socket as `make floor` names its measures, and the column each is fitted on in a server's run
# (RSS and PSS over the step plateaus, the live heap over the GCs during the steps: memory.per_connection).
PER_SOCKET = {"RSS": "rss_bytes", "PSS": "pss_bytes", "live heap": "heap_after_gc_bytes"}

FLOOR_DEPTH = 0  # a task parked directly: the model's own cost
DEEP_DEPTH = 20  # parked 20 frames deep: what a real handler's stack adds, said beside it


# ---- per pass --------------------------------------------------------------------------------------


def compared(run: Run) -> list[ServerRun]:
    """The passes of a run the grid compares: every repeat streamed by JFR that ended ok.

    A pass without the JFR stream measures the stream's cost (it has no CPU series), and a pass that
    failed measured something other than the profile; `left_out` names them.
    """
    return [s for s in run.servers if s.jfr_streaming and s.ok]


def left_out(runs: list[Run]) -> list[str]:
    """What the grid leaves out of `runs`, one sentence each: runs on another JDK than the first's, and failed passes."""
    notes = []
    jdk = jdk_of(runs[0]) if runs else None
    for run in runs:
        if jdk_of(run) != jdk:
            notes.append(f"{run.folder.name}: ran on JDK {jdk_of(run)}, not {jdk}; not pooled with it")
            continue
        for s in run.servers:
            if s.jfr_streaming and not s.ok:
                notes.append(f"{run.folder.name}/{s.name}: {s.outcome.get('status', 'failed')}; its figures are not compared")
    return notes


def passes(runs: list[Run]) -> pd.DataFrame:
    """One row per pass and headline figure: run folder, pass, server, label, engine, model, jdk, figure, value.

    Runs on another JDK than the first run's are left out (`left_out` says so): a model's cost
    depends on the JDK, so its passes are not repeats of the same thing.
    """
    rows, tables = [], {}
    for run, server, base in _each_pass(runs):
        if run.folder not in tables:
            tables[run.folder] = {endpoint: latency.endpoint_table(run, endpoint).set_index("run") for endpoint in ("json", "dashboard")}
        json_table = tables[run.folder]["json"]
        cpus = provenance.of(run.manifest)["host"].get("cpus")
        values = {
            MEMORY: _slope(server, "RSS") / KIB,
            JSON_P99: _p99(server, "json", json_table),
            DASHBOARD_P99: _p99(server, "dashboard", tables[run.folder]["dashboard"]),
            THREADS: runtime.peak_threads(server),
            CPU: 1e6 * runtime.cpu_seconds_per_request(server, "json", cpus, json_table.loc[server.name, "requests_per_second"]),
        }
        rows += [{**base, "figure": figure, "value": value} for figure, value in values.items()]
    return pd.DataFrame(rows, columns=[*_PASS_COLUMNS, "figure", "value"])


def per_server(passes: pd.DataFrame) -> pd.DataFrame:
    """Per server and figure: the median over its passes, the range (low, high; NaN with fewer than two passes), and how many passes."""
    rows = []
    for (server, label, engine, model, figure), group in passes.groupby(["server", "label", "engine", "model", "figure"], sort=False):
        values = group["value"].dropna()
        many = len(values) >= 2
        rows.append(
            {
                "server": server,
                "label": label,
                "engine": engine,
                "model": model,
                "figure": figure,
                "median": values.median() if len(values) else math.nan,
                "low": values.min() if many else math.nan,
                "high": values.max() if many else math.nan,
                "passes": len(values),
            }
        )
    return pd.DataFrame(rows, columns=["server", "label", "engine", "model", "figure", "median", "low", "high", "passes"])


def per_socket(runs: list[Run]) -> pd.DataFrame:
    """Per server and measure (RSS, PSS, live heap): bytes per idle socket, the median over its passes with their range.

    Each pass's figure is the slope of memory.per_connection, which leaves out the steps that did not settle.
    """
    rows = [{**base, "figure": measure, "value": _slope(server, measure)} for _, server, base in _each_pass(runs) for measure in PER_SOCKET]
    table = per_server(pd.DataFrame(rows, columns=[*_PASS_COLUMNS, "figure", "value"]))
    return table.rename(columns={"figure": "measure"})


_PASS_COLUMNS = ["run folder", "pass", "server", "label", "engine", "model", "jdk"]


def _each_pass(runs: list[Run]) -> Iterator[tuple[Run, ServerRun, dict]]:
    jdk = jdk_of(runs[0]) if runs else None
    for run in runs:
        if jdk_of(run) != jdk:
            continue
        labels = {entry["server"]: entry["what it is"] for entry in catalogue.run_servers(run.manifest)}
        for server in compared(run):
            yield (
                run,
                server,
                {
                    "run folder": run.folder.name,
                    "pass": server.name,
                    "server": server.server,
                    "label": labels.get(server.server, server.server),
                    "engine": catalogue.engine_in(run.manifest, server.server) or "?",
                    "model": catalogue.model_in(run.manifest, server.server) or "?",
                    "jdk": jdk,
                },
            )


def jdk_of(run: Run):
    """The JDK feature release (25) a run's servers ran on, from its provenance: the one its floor must match."""
    found = provenance.of(run.manifest)["jdk"]
    return found.get("feature") or _feature(found.get("version"))


def _feature(version) -> str | None:
    return str(version).split(".")[0] if version is not None else None


def _slope(server: ServerRun, measure: str) -> float:
    column = PER_SOCKET[measure]
    points = memory.live_heap_points(server) if column == "heap_after_gc_bytes" else memory.plateaus(server)
    return memory.per_connection(points, column).slope if not points.empty else math.nan


def _p99(server: ServerRun, endpoint: str, table: pd.DataFrame) -> float:
    """k6's rule over the pass's raw samples; k6's own summary where the samples are missing."""
    samples = latency.durations(server, endpoint)
    return latency.percentile(samples, 99) if len(samples) else float(table.loc[server.name, "p(99)"])


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
    for figure in HEADLINES:
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


def model_effects(passes: pd.DataFrame) -> pd.DataFrame:
    """Along each engine that runs two models or more: every pair of its models (the catalogue's order, A less B), every headline figure.

    `within` is the engine; `A` and `B` are the models. Empty when no engine runs two models.
    """
    rows = []
    for engine in engines(passes):
        here = passes[passes["engine"] == engine]
        present = [m for m in models(passes) if (here["model"] == m).any()]
        for a, b in itertools.combinations(present, 2):
            rows += _effects(passes, engine, a, b, here[here["model"] == a], here[here["model"] == b])
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def engine_effects(passes: pd.DataFrame) -> pd.DataFrame:
    """Down each model that runs on two engines or more: every pair of its engines (in declaration order, A less B), every headline figure.

    `within` is the model; `A` and `B` are the engines. Empty when no model runs on two engines.
    """
    rows = []
    for model in models(passes):
        here = passes[passes["model"] == model]
        present = [e for e in engines(passes) if (here["engine"] == e).any()]
        for a, b in itertools.combinations(present, 2):
            rows += _effects(passes, model, a, b, here[here["engine"] == a], here[here["engine"] == b])
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def _effects(passes: pd.DataFrame, within: str, a: str, b: str, a_passes: pd.DataFrame, b_passes: pd.DataFrame) -> list[dict]:
    rows = []
    # One cell is normally one server; two servers in one cell are compared each with each, never pooled.
    for a_server, b_server in itertools.product(a_passes["server"].unique(), b_passes["server"].unique()):
        for figure in [f for f in HEADLINES if (passes["figure"] == f).any()]:
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


def summary_sentence(passes: pd.DataFrame, figure: str = MEMORY) -> str:
    """One sentence: what the model costs and what the engine costs in `figure`, each with its figure and how sure it is.

    The model's cost is read on the engine that runs the most models, as the largest difference between
    two of them; the engine's as the largest difference between two engines under one model. A cost this
    data cannot show is said to be missing, and why.
    """
    unit = UNITS.get(figure, "")
    model = _largest(model_effects(passes), figure, by_most_models=True)
    engine = _largest(engine_effects(passes), figure)
    if model is not None:
        model_part = (
            f"the model costs up to {number(model['difference'])} {unit}: on {model['within']}, "
            f"{MODEL_WORDS.get(model['A'], model['A'])} {number(model['A median'])} against "
            f"{MODEL_WORDS.get(model['B'], model['B'])} {number(model['B median'])} {unit} {_how_sure(model, unit)}"
        )
    else:
        model_part = f"the model's cost is not measured: {missing_model_effect(passes) or f'no {figure} to compare'}"
    if engine is not None:
        engine_part = (
            f"the engine costs {number(engine['difference'])} {unit}: {MODEL_WORDS.get(engine['within'], engine['within'])} "
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
    measures = list(PER_SOCKET) if floor is None else [m for m in PER_SOCKET if floor["measure"].isin(FLOOR_PARTS[m]).any()]
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
    here = floor[(floor["jdk"].map(_feature) == _feature(jdk)) & (floor["model"] == model) & (floor["depth"] == depth)]
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
