"""A `make sweep` folder as the harness wrote it: manifest.json, sweep.csv (a row a measured step), memory.csv (a row a
memory component of a snapshot) and threads.csv (a row a thread family of a measured step), read and checked, with what
failed, is missing or was cut said in `problems`.
labanalysis.sweep.sweep computes the figures from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import provenance, series
from .declared import DeclaredError, read_as
from .experiment_manifests import SweepManifest

# sweep.csv's and memory.csv's columns, as run-folder.json declares them (the harness writes through the same declaration).
STEPS = series.EXPERIMENTS["sweep"]["sweep.csv"]
MEMORY = series.EXPERIMENTS["sweep"]["memory.csv"]
THREADS = series.EXPERIMENTS["sweep"]["threads.csv"]
STEP_COLUMNS = list(STEPS.columns)
MEMORY_COLUMNS = list(MEMORY.columns)
THREADS_COLUMNS = list(THREADS.columns)


class SweepFolderError(Exception):
    """Not a `make sweep` folder: one line saying what to pass instead."""


@dataclass
class SweepRun:
    folder: Path
    manifest: SweepManifest
    steps: pd.DataFrame
    memory: pd.DataFrame
    # Empty for a folder from before threads.csv.
    threads: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=THREADS_COLUMNS))
    problems: list[str] = field(default_factory=list)


def load(folder: str | Path) -> SweepRun:
    """The run's manifest, steps and memory snapshots, with what failed, is missing or was cut said in `problems`."""
    folder = Path(folder)
    manifest_file = folder / "manifest.json"
    if not manifest_file.is_file() or "highestConcurrency" not in (manifest := json.loads(manifest_file.read_text())):
        raise SweepFolderError(f"{folder} is not a `make sweep` folder (no manifest.json with highestConcurrency); pass results/<time>-sweep")
    if refused := series.refused_version(folder, manifest):
        raise SweepFolderError(refused)
    try:
        manifest = read_as(SweepManifest, manifest, "a sweep's manifest")
    except DeclaredError as e:
        raise SweepFolderError(f"{manifest_file}: {e}") from e
    problems = provenance.problems_of(manifest.provenance, manifest.problems)
    steps = _csv(folder / "sweep.csv", STEPS, problems)
    memory = _csv(folder / "memory.csv", MEMORY, problems)
    # A folder from before threads.csv has none, and says nothing of its threads: not a problem of the run.
    threads = _csv(folder / "threads.csv", THREADS, problems) if (folder / "threads.csv").is_file() else pd.DataFrame(columns=THREADS_COLUMNS)
    return SweepRun(folder, manifest, steps, memory, threads, problems)


def _csv(path: Path, spec: series.Series, problems: list[str]) -> pd.DataFrame:
    columns = list(spec.columns)
    if not path.is_file():
        problems.append(f"{path.name} is missing")
        return pd.DataFrame(columns=columns)
    frame = pd.read_csv(path, keep_default_na=True, dtype=dict.fromkeys(spec.text, str))
    # A folder made before an optional column was declared lacks it, and reads as not having measured it.
    absent = [c for c in columns if c not in frame.columns]
    if list(frame.columns) != [c for c in columns if c in frame.columns] or any(c in spec.required for c in absent):
        raise SweepFolderError(f"{path} has columns {list(frame.columns)}, not {columns}")
    frame = frame.reindex(columns=columns)
    whole = frame.dropna(subset=list(spec.required))
    if len(whole) < len(frame):
        problems.append(f"{path.name}: {len(frame) - len(whole)} row(s) cut mid-write, dropped")
    return whole.reset_index(drop=True)
