"""Each concurrency model's own memory per parked task, with no server (`make floor`, a `results/<time>-floor/` folder).

The harness parks N tasks of one model in a fresh JVM (the bench's flags, NMT on), step by
step, and at each step forces a full GC and records the facts in `floor.csv`: the live heap (the
class histogram's total), RSS and PSS, NMT's Thread committed and its stacks' committed, and
the OS threads; each JVM parks its tasks cold (no warm-up round) or warm (after the model's
warm-up rounds), its `warmth`. This module computes the one statistic: bytes per task, the least-squares slope
of a measure against the tasks parked, fitted in each JVM (each repeat) on its own; then the
median of those slopes and their range (lowest to highest), as repeats.medians does: with a
handful of repeats the range is the honest spread, where a confidence interval from three
values would claim more than they can say.

`per_task` is a contract other code reads: its columns are exactly PER_TASK_COLUMNS.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..bench import memory
from ..folder import catalogue, provenance, series
from ..folder.declared import DeclaredError, read_as
from ..folder.experiment_manifests import FloorManifest
from ..folder.provenance import Jdk
from ..stats import Across, numbers

# The measures, by the name per_task gives them, and floor.csv's column for each.
MEASURES = {
    "live heap": "live_heap_bytes",
    "RSS": "rss_bytes",
    "PSS": "pss_bytes",
    "NMT thread committed": "nmt_thread_committed_bytes",
    "NMT stack committed": "nmt_stack_committed_bytes",
}
# floor.csv's columns, as run-folder.json declares them (the harness writes through the same declaration).
CSV = series.EXPERIMENTS["floor"]["floor.csv"]
CSV_COLUMNS = list(CSV.columns)
CELL = ["jdk", "model", "depth", "warmth"]
# A JVM parks its tasks on a JIT that has compiled nothing of their path (cold) or after the model's warm-up rounds (warm), as a
# bench's sockets open cold or warm (the same names). A floor of before floor.csv had the column warmed every JVM up.
COLD, WARM = memory.COLD, memory.WARM
WARMTHS = (COLD, WARM)
PER_TASK_COLUMNS = [*CELL, "measure", "median", "low", "high", "repeats"]
# Below this many repeats a claim is judged on the median alone: two values are not a spread to resolve it with (floor_verdicts).
MIN_REPEATS_FOR_RANGE = 3
# How far a JVM's live heap per task may move between its steps before the report says so.
UNEVEN_PERCENT = 10
KIB = 1024


class FloorFolderError(Exception):
    """Not a `make floor` folder: one line saying what to pass instead."""


@dataclass
class FloorRun:
    folder: Path
    manifest: FloorManifest
    steps: pd.DataFrame
    problems: list[str] = field(default_factory=list)


def load(folder: str | Path) -> FloorRun:
    """The run's manifest and its steps (floor.csv), with what is missing or cut said in `problems`."""
    folder = Path(folder)
    manifest_file = folder / "manifest.json"
    if not manifest_file.is_file() or "settings" not in (manifest := json.loads(manifest_file.read_text())):
        raise FloorFolderError(f"{folder} is not a `make floor` folder (no manifest.json with settings); pass results/<time>-floor")
    if refused := series.refused_version(folder, manifest):
        raise FloorFolderError(refused)
    try:
        manifest = read_as(FloorManifest, manifest, "a floor's manifest")
    except DeclaredError as e:
        raise FloorFolderError(f"{manifest_file}: {e}") from e
    problems = provenance.problems_of(manifest.provenance, manifest.problems)
    csv = folder / "floor.csv"
    if not csv.is_file():
        problems.append("floor.csv is missing")
        return FloorRun(folder, manifest, pd.DataFrame(columns=CSV_COLUMNS), problems)
    steps = pd.read_csv(csv, dtype=dict.fromkeys(CSV.text, str))
    if "warmth" not in steps.columns and list(steps.columns) == [c for c in CSV_COLUMNS if c not in CSV.optional]:
        steps = steps.assign(warmth=WARM)
    if list(steps.columns) != CSV_COLUMNS:
        raise FloorFolderError(f"{csv} has columns {list(steps.columns)}, not {CSV_COLUMNS}")
    whole = steps.dropna()
    if len(whole) < len(steps):
        problems.append(f"floor.csv: {len(steps) - len(whole)} row(s) cut mid-write, dropped")
    whole = whole.astype({c: "int64" for c in CSV_COLUMNS if c not in CSV.text})
    problems.extend(uneven(whole))
    return FloorRun(folder, manifest, whole, problems)


def uneven(steps: pd.DataFrame, measure: str = "live heap") -> list[str]:
    """The JVMs whose `measure` per task, step to step, moved by more than UNEVEN_PERCENT of its mean over all their steps.

    The live heap is exact, so a JVM's tasks should cost the same at every step; one that did not
    (its park path recompiled mid-run, say) has a slope that depends on where the steps fell.
    It is kept, and said.
    """
    column = MEASURES[measure]
    found = []
    for (jdk, model, depth, warmth, repeat), jvm in steps.groupby([*CELL, "repeat"], sort=True):
        jvm = jvm.sort_values("tasks")
        per_step = (jvm[column].diff() / jvm["tasks"].diff()).dropna()
        mean = (jvm[column].iloc[-1] - jvm[column].iloc[0]) / (jvm["tasks"].iloc[-1] - jvm["tasks"].iloc[0]) if len(jvm) > 1 else 0
        if len(per_step) >= 2 and mean and (per_step.max() - per_step.min()) > UNEVEN_PERCENT / 100 * abs(mean):
            found.append(
                f"JDK {jdk} {model} depth {depth} {warmth} repeat {repeat}: its {measure} per task moved between steps, "
                f"{per_step.min():,.0f} to {per_step.max():,.0f} B (mean {mean:,.0f} B)"
            )
    return found


def _steps(frame_or_folder) -> pd.DataFrame:
    if isinstance(frame_or_folder, pd.DataFrame):
        return frame_or_folder
    if isinstance(frame_or_folder, FloorRun):
        return frame_or_folder.steps
    return load(frame_or_folder).steps


def slopes(frame_or_folder) -> pd.DataFrame:
    """One row per JVM (jdk, model, depth, warmth, repeat) and measure: bytes_per_task (the least-squares slope against tasks), R²,
    points.

    The fit is memory.per_connection's (scipy's linregress), with the tasks parked as its x.
    """
    steps = _steps(frame_or_folder)
    rows = []
    for (jdk, model, depth, warmth, repeat), jvm in steps.groupby([*CELL, "repeat"], sort=True):
        points = jvm.rename(columns={"tasks": "open_sockets"})
        for measure, column in MEASURES.items():
            fit = memory.per_connection(points, column)
            rows.append(
                {
                    "jdk": jdk,
                    "model": model,
                    "depth": depth,
                    "warmth": warmth,
                    "repeat": repeat,
                    "measure": measure,
                    "bytes_per_task": fit.slope,
                    "r_squared": fit.r_squared,
                    "points": fit.points,
                }
            )
    return pd.DataFrame(rows, columns=[*CELL, "repeat", "measure", "bytes_per_task", "r_squared", "points"])


def per_task(frame_or_folder) -> pd.DataFrame:
    """Bytes per parked task: one row per jdk, model, depth, warmth and measure, with the median of the repeats' slopes, their range
    (low: the lowest, high: the highest) and how many repeats there were.

    `frame_or_folder` is floor.csv as a DataFrame, a loaded FloorRun, or the run folder. A JVM whose
    slope cannot be fitted (fewer than two steps) does not count as a repeat. low and high are the
    lowest and highest slope whatever the number of repeats (equal to the median with one); the
    report shows them only from MIN_REPEATS_FOR_RANGE repeats.
    """
    fitted = slopes(frame_or_folder).dropna(subset=["bytes_per_task"])
    grouped = fitted.groupby([*CELL, "measure"], sort=False)["bytes_per_task"]
    out = grouped.agg(median="median", low="min", high="max", repeats="count").reset_index()
    return _sorted(out, [*CELL, "measure"])[PER_TASK_COLUMNS]


def kib_range(median: float, low: float, high: float, repeats: int) -> str:
    """A per-task figure in KiB for a reader, shown as every figure across passes is (stats.numbers.shown, a repeat being a
    pass): `1.22 [1.21, 1.23]`; blank where none was measured."""
    if math.isnan(median):
        return ""
    return numbers.shown(Across(median / KIB, low / KIB, high / KIB, repeats), passes=False)


def table(run: FloorRun, measures: tuple[str, ...] = ("live heap", "RSS", "PSS", "NMT thread committed")) -> pd.DataFrame:
    """Model, depth and warmth down, JDK and measure across: KiB per task, median [range] over the repeats."""
    figures = per_task(run)
    if figures.empty:
        return pd.DataFrame()
    figures = figures[figures["measure"].isin(measures)]
    figures = figures.assign(
        text=[kib_range(r.median, r.low, r.high, r.repeats) for r in figures.itertuples()],
        column=[f"{m}, JDK {j}" for m, j in zip(figures["measure"], figures["jdk"], strict=True)],
    )
    wide = figures.pivot_table(index=["model", "depth", "warmth"], columns="column", values="text", aggfunc="first", sort=False)
    columns = [f"{m}, JDK {j}" for m in measures for j in sorted(figures["jdk"].unique())]
    models = _model_order(figures["model"])
    wide = wide.reindex(columns=[c for c in columns if c in wide.columns])
    wide.columns.name = None
    return wide.reindex(sorted(wide.index, key=lambda i: (models.index(i[0]), i[1], WARMTHS.index(i[2]))))


def warmth_table(run: FloorRun, measure: str = "live heap") -> pd.DataFrame:
    """Per JDK, model and depth: KiB per task cold and warm (median [range] over the repeats), and cold over warm, the medians'
    ratio; empty where the run parked its tasks one way only."""
    figures = per_task(run)
    figures = figures[figures["measure"] == measure]
    if set(figures["warmth"]) != set(WARMTHS):
        return pd.DataFrame()
    rows = []
    for (jdk, model, depth), cell in figures.groupby(["jdk", "model", "depth"], sort=False):
        by = cell.set_index("warmth")
        if not set(WARMTHS) <= set(by.index):
            continue
        cold, warm = by.loc[COLD], by.loc[WARM]
        rows.append(
            {
                "JDK": jdk,
                "model": model,
                "depth": depth,
                f"{measure} cold (KiB a task)": kib_range(cold["median"], cold["low"], cold["high"], cold["repeats"]),
                f"{measure} warm (KiB a task)": kib_range(warm["median"], warm["low"], warm["high"], warm["repeats"]),
                "cold over warm": numbers.number(cold["median"] / warm["median"]) if warm["median"] > 0 else "",
            }
        )
    return pd.DataFrame(rows)


def _model_order(seen) -> list[str]:
    """The models in the catalogue's order (coroutine, virtual, platform), any other after them."""
    seen = list(dict.fromkeys(seen))
    return [m for m in catalogue.MODELS if m in seen] + sorted(set(seen) - set(catalogue.MODELS))


def _sorted(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """`frame` sorted by `by`, models in the catalogue's order and measures in MEASURES' order."""
    models = _model_order(frame["model"]) if "model" in frame.columns else []
    measures = list(MEASURES)

    def key(column: pd.Series) -> pd.Series:
        if column.name == "model":
            return column.map(models.index)
        if column.name == "measure":
            return column.map(measures.index)
        return column

    return frame.sort_values(by, key=key).reset_index(drop=True)


def depth_cost(run: FloorRun, measure: str = "live heap") -> pd.DataFrame:
    """What the deeper call costs a task, per frame: (the median bytes per task at the deepest depth - at depth 0) / the frames
    between, each frame holding the manifest's liveLocalsPerFrame longs live across the park.

    The seed's claim is that a virtual thread carries its frames on the heap when it parks and a
    coroutine only the locals live across its suspension: the live heap per frame says which.
    """
    figures = per_task(run)
    figures = figures[figures["measure"] == measure]
    rows = []
    for (jdk, model, warmth), group in figures.groupby(["jdk", "model", "warmth"], sort=False):
        by_depth = group.set_index("depth")
        if 0 not in by_depth.index or by_depth.index.max() == 0:
            continue
        deep = by_depth.index.max()
        extra = by_depth.loc[deep, "median"] - by_depth.loc[0, "median"]
        rows.append(
            {
                "JDK": jdk,
                "model": model,
                "warmth": warmth,
                f"{measure} per task at depth 0 (B)": round(by_depth.loc[0, "median"]),
                f"at depth {deep} (B)": round(by_depth.loc[deep, "median"]),
                "per frame (B)": round(extra / deep, 1),
            }
        )
    return pd.DataFrame(rows)


def facts(run: FloorRun) -> dict[str, str]:
    m = run.manifest
    s = m.settings

    def version(jdk: Jdk) -> str:
        runtime = m.jdk_runtimes.get(str(jdk.feature))
        return (runtime.runtime_version if runtime else None) or jdk.version

    jdks = "; ".join(f"{version(j)} ({j.vendor or 'vendor unknown'}, {j.home})" for j in m.jdks)
    flags = "; ".join(f"JDK {feature}: {' '.join(f)}" for feature, f in m.jvm_flags.items())
    return {
        **m.provenance.run_facts(),
        "JDKs the tasks parked on": jdks,
        "JVM flags": flags,
        "git commit": m.provenance.commit(),
        "models": "; ".join(f"{model}: {waits}" for model, waits in m.models.items()),
        "steps (tasks parked)": ", ".join(f"{n:,}" for n in s.steps),
        "depths": f"{', '.join(map(str, s.depths))} frames, {s.live_locals_per_frame} live longs a frame",
        "repeats": f"{s.repeats}, each in a fresh JVM, in random order within each repeat (seed {s.seed})",
        "warm-up before the first step": "; ".join(f"{model}: {w.rounds} x {w.tasks:,} tasks parked and woken" for model, w in s.warmup.items())
        + ("; cold JVMs: none" if COLD in s.warmths else ""),
        "warmths": ", ".join(s.warmths),
        "heap": f"{s.heap_mb:,} MiB, fixed: the bench's",
        "JVMs": f"{len(m.cells)} ran, {sum(c.status != 'ok' for c in m.cells)} failed",
    }
