"""Which `make floor` folder of results/ measured a JDK with a collector: the report splits each socket's memory with the newest.
The harness decides by the same rule whether `make bench` measures a floor first (lab.floor.MeasuredFloors, `--unless-measured`),
so that a new machine's first report splits each socket's memory without a second command.

A floor's manifest that names no collector is from before the collector was an axis: ZGC's.
"""

from __future__ import annotations

import json
from pathlib import Path

from .bench_manifest import ZGC, collector_of
from .catalogue import MODELS

# The run-folder format the analysis reads (series.FORMAT_VERSION, read here without pandas): a floor in another, or in none (one
# from before run-folder.json), is not one the report can show, so make bench measures a new one.
FORMAT_VERSION = json.loads((Path(__file__).resolve().parents[3] / "run-folder.json").read_text())["version"]

FLOOR_SUFFIX = "-floor"


# The warmths a floor parks its tasks in (labanalysis.floor.floor.WARMTHS); a floor from before they were an axis parked them warm.
WARMTHS = ("cold", "warm")
BEFORE_WARMTHS = ("warm",)


def covering(
    results: Path, jdk_feature: int, collector: str = ZGC, models: tuple[str, ...] = MODELS, warmths: tuple[str, ...] = WARMTHS
) -> list[Path]:
    """The whole `make floor` folders in `results` (a floor.csv, a manifest that says complete and the run-folder format the analysis
    reads) that measured JDK `jdk_feature` on `collector`, a task of each of `models` (the catalogue's unless told) and each of
    `warmths` (cold and warm unless told), oldest first: their names begin with the time they started."""
    found = []
    for folder in sorted(results.glob(f"*{FLOOR_SUFFIX}")):
        try:
            manifest = json.loads((folder / "manifest.json").read_text())
        except (OSError, json.JSONDecodeError):
            continue
        complete = manifest.get("provenance", {}).get("status") == "complete" and manifest.get("runFolderFormat") == FORMAT_VERSION
        if (
            complete
            and collector_of(manifest) == collector
            and (folder / "floor.csv").is_file()
            and any(j.get("feature") == jdk_feature for j in manifest.get("jdks", []))
            and set(models) <= set(manifest.get("settings", {}).get("models", []))
            and set(warmths) <= set(manifest.get("settings", {}).get("warmths", BEFORE_WARMTHS))
        ):
            found.append(folder)
    return found
