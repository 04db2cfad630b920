"""A `make autobahn-perf` folder as the harness wrote it: manifest.json (the arms, the order the passes ran in and how each ended)
and a folder a pass holding wstest's own index.json, read and checked into one row a case, with what failed, is missing or was cut
said in `problems`. labanalysis.autobahn.autobahnperf computes the figures from it.

wstest's index.json is `{"<agent>": {"9.1.1": {"behavior": "OK", "behaviorClose": "OK", "duration": 123, ...}}}`, duration in ms
from the case's opening handshake to its connection's close; the harness names the agent after the arm.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import provenance, series
from .declared import DeclaredError, read_as
from .experiment_manifests import AutobahnArm, AutobahnManifest

AUTOBAHN_SUFFIX = "-autobahn"
CASE_COLUMNS = ["arm", "pass", "case", "section", "duration_ms", "behavior", "behavior_close"]
INDEX = "index.json"


class AutobahnFolderError(Exception):
    """Not a `make autobahn-perf` folder: one line saying what to pass instead."""


@dataclass
class AutobahnRun:
    folder: Path
    manifest: AutobahnManifest
    cases: pd.DataFrame
    problems: list[str] = field(default_factory=list)

    @property
    def arms(self) -> tuple[AutobahnArm, ...]:
        """The manifest's arms: each one's name, the server it runs and the lab's changes it runs without (as_shipped)."""
        return self.manifest.arms


def load(folder: str | Path) -> AutobahnRun:
    """The run's manifest and every case of every pass that ended ok, with what failed, is missing or was cut said in `problems`."""
    folder = Path(folder)
    manifest_file = folder / "manifest.json"
    if not manifest_file.is_file() or "passOrder" not in (manifest := json.loads(manifest_file.read_text())):
        raise AutobahnFolderError(
            f"{folder} is not a `make autobahn-perf` folder (no manifest.json with passOrder); pass results/<time>{AUTOBAHN_SUFFIX}"
        )
    if refused := series.refused_version(folder, manifest):
        raise AutobahnFolderError(refused)
    try:
        manifest = read_as(AutobahnManifest, manifest, "an Autobahn run's manifest")
    except DeclaredError as e:
        raise AutobahnFolderError(f"{manifest_file}: {e}") from e
    problems = provenance.problems_of(manifest.provenance)
    ended = {(o.arm, o.pass_): o for o in manifest.outcomes}
    frames = []
    for planned in manifest.pass_order:
        outcome = ended.get((planned.arm, planned.pass_))
        where = f"{planned.folder} ({planned.arm}, pass {planned.pass_})"
        if outcome is None:
            problems.append(f"{where} did not run: the run stopped before it")
        elif outcome.status != "ok":
            problems.append(f"{where} {outcome.status}: {outcome.reason or 'no reason recorded'}; its cases are left out")
        else:
            frames.append(_pass_cases(folder / planned.folder, planned.arm, planned.pass_, where, problems))
    read = [frame for frame in frames if not frame.empty]
    cases = pd.concat(read, ignore_index=True) if read else pd.DataFrame(columns=CASE_COLUMNS)
    most = cases.groupby(["arm", "pass"])["case"].nunique().max() if not cases.empty else 0
    for arm, pass_number in sorted(short_passes(cases)):
        ran = cases[(cases["arm"] == arm) & (cases["pass"] == pass_number)]["case"].nunique()
        problems.append(f"{arm}, pass {pass_number} ran {ran} of {most} cases; its totals are left out")
    return AutobahnRun(folder, manifest, cases, problems)


def short_passes(cases: pd.DataFrame) -> set[tuple[str, int]]:
    """The (arm, pass)es that ran fewer cases than the pass that ran most: not the same work, so their totals are not compared."""
    if cases.empty:
        return set()
    counts = cases.groupby(["arm", "pass"])["case"].nunique()
    return {key for key, n in counts.items() if n < counts.max()}


def _pass_cases(pass_folder: Path, arm: str, pass_number: int, where: str, problems: list[str]) -> pd.DataFrame:
    """One pass's cases from wstest's index.json, its agent the arm; none (and a problem said) where the file is missing or cut."""
    index_file = pass_folder / INDEX
    try:
        index = json.loads(index_file.read_text())
    except FileNotFoundError:
        problems.append(f"{where} ended ok but has no {INDEX}; its cases are left out")
        return pd.DataFrame(columns=CASE_COLUMNS)
    except json.JSONDecodeError:
        problems.append(f"{where}: {INDEX} is cut short or not JSON; its cases are left out")
        return pd.DataFrame(columns=CASE_COLUMNS)
    if arm not in index:
        problems.append(f"{where}: {INDEX} has no agent {arm!r} (it has {', '.join(map(repr, index)) or 'none'}); its cases are left out")
        return pd.DataFrame(columns=CASE_COLUMNS)
    rows = [
        {
            "arm": arm,
            "pass": pass_number,
            "case": case,
            "section": section_of(case),
            "duration_ms": result["duration"],
            "behavior": result["behavior"],
            "behavior_close": result["behaviorClose"],
        }
        for case, result in sorted(index[arm].items(), key=lambda item: case_key(item[0]))
    ]
    return pd.DataFrame(rows, columns=CASE_COLUMNS)


def section_of(case: str) -> str:
    """A case's section, its id less the last part: 9.1.6 is in 9.1 (the same payload size, sent one way)."""
    return case.rsplit(".", 1)[0]


def case_key(case: str) -> tuple[int, ...]:
    """A case id as numbers, so that 9.1.10 sorts after 9.1.9."""
    return tuple(int(part) for part in case.split("."))
