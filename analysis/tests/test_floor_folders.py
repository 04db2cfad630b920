"""The report splits a bench run's memory with the newest whole `make floor` folder of results/ that measured its JDK and collector."""

import json
import shutil
from pathlib import Path

from conftest import FIXTURES

from labanalysis.folder import catalogue, floor_folders


def floor_folder(
    results: Path,
    name: str,
    features: list[int],
    status: str = "complete",
    with_csv: bool = True,
    collector: str | None = None,
    models: tuple[str, ...] = catalogue.MODELS,
    warmths: tuple[str, ...] | None = ("cold", "warm"),
) -> Path:
    """A copy of the real floor fixture, saying it measured `features` on `collector` (none named: as before the collector was an
    axis), a task of each of `models` in each of `warmths` (None: as before the warmth was an axis), and ended `status`."""
    folder = results / name
    shutil.copytree(FIXTURES / "floor", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["provenance"]["status"] = status
    manifest["jdks"] = [j for j in manifest["jdks"] if j["feature"] in features]
    if collector:
        manifest["collector"] = collector
    manifest["settings"]["models"] = list(models)
    if warmths is not None:
        manifest["settings"]["warmths"] = list(warmths)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=4))
    if not with_csv:
        (folder / "floor.csv").unlink()
    return folder


def test_the_newest_whole_folder_that_measured_the_jdk_is_the_one(tmp_path):
    floor_folder(tmp_path, "20261120-100000-floor", [21, 25])
    newest = floor_folder(tmp_path, "20261121-100000-floor", [25])
    floor_folder(tmp_path, "20261122-100000-floor", [21])
    floor_folder(tmp_path, "20261123-100000-floor", [25], status="failed")
    floor_folder(tmp_path, "20261124-100000-floor", [25], with_csv=False)

    assert floor_folders.covering(tmp_path, 25)[-1] == newest
    assert [f.name for f in floor_folders.covering(tmp_path, 21)] == ["20261120-100000-floor", "20261122-100000-floor"]


def test_a_floor_is_of_its_collector_and_one_that_names_none_is_zgcs(tmp_path):
    before = floor_folder(tmp_path, "20261120-100000-floor", [25])
    g1 = floor_folder(tmp_path, "20261121-100000-floor", [25], collector="g1")
    zgc = floor_folder(tmp_path, "20261122-100000-floor", [25], collector="zgc")

    assert floor_folders.covering(tmp_path, 25) == [before, zgc]
    assert floor_folders.covering(tmp_path, 25, "g1") == [g1]


def test_a_floor_without_a_model_the_catalogue_declares_covers_no_bench_of_it(tmp_path):
    every = floor_folder(tmp_path, "20261120-100000-floor", [25])
    floor_folder(tmp_path, "20261121-100000-floor", [25], models=catalogue.MODELS[:-1])

    assert floor_folders.covering(tmp_path, 25) == [every]
    assert len(floor_folders.covering(tmp_path, 25, models=catalogue.MODELS[:-1])) == 2


def test_a_floor_that_parked_its_tasks_warm_only_covers_no_bench_that_needs_them_cold(tmp_path):
    both = floor_folder(tmp_path, "20261120-100000-floor", [25])
    warm = floor_folder(tmp_path, "20261121-100000-floor", [25], warmths=("warm",))
    before = floor_folder(tmp_path, "20261122-100000-floor", [25], warmths=None)

    assert floor_folders.covering(tmp_path, 25) == [both]
    assert floor_folders.covering(tmp_path, 25, warmths=("warm",)) == [both, warm, before]
