"""A report shows the newest folder of each other command beside its own, and the same ones every time it is rendered again."""

import json

import pytest

from labanalysis.report import render


@pytest.mark.parametrize("parameter, fixture, kind", [("AUDIT", "audit", "pinning"), ("CLIENTS", "clients", "clients"), ("IO", "io", "io")])
def test_the_newest_folder_of_a_kind_beside_a_run_is_chosen_and_recorded(tmp_path, fixture_copy, parameter, fixture, kind):
    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    for stamp in ["20261122-050000", "20261122-061512"]:
        fixture_copy(fixture, f"{stamp}-{kind}")

    assert render.siblings(run, [parameter]) == {parameter: str(tmp_path / f"20261122-061512-{kind}")}
    assert json.loads((run / render.INPUTS).read_text()) == {parameter: f"20261122-061512-{kind}"}


def test_rendering_again_shows_the_same_siblings_after_a_newer_one_appears(tmp_path, fixture_copy):
    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    first = render.siblings(run, ["AUDIT", "IO"])
    fixture_copy("audit", "20261122-061512-pinning")

    assert render.siblings(run, ["AUDIT", "IO"]) == first == {"AUDIT": None, "IO": None}
    (run / render.INPUTS).unlink()
    assert render.siblings(run, ["AUDIT"])["AUDIT"] == str(tmp_path / "20261122-061512-pinning")


@pytest.mark.parametrize("kind, marker, parameter", [("floor", "floor.csv", "FLOOR"), ("sweep", "sweep.csv", "SWEEP")])
def test_the_newest_whole_floor_or_sweep_in_the_run_folder_format_beside_a_run_is_shown(tmp_path, kind, marker, parameter):
    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    formats = {"050000": 1, "061512": 1, "063000": None, "064000": 2, "070000": 1}
    for stamp, version in formats.items():
        folder = tmp_path / f"20261122-{stamp}-{kind}"
        folder.mkdir()
        (folder / "manifest.json").write_text(json.dumps({} if version is None else {"runFolderFormat": version}))
        if stamp != "070000":  # the newest has no steps yet: still being written
            (folder / marker).write_text("")

    # 063000 predates the run-folder format and 064000 is in another: their readers would refuse them.
    assert render.siblings(run, [parameter]) == {parameter: str(tmp_path / f"20261122-061512-{kind}")}


def test_of_floors_the_newest_that_measured_the_runs_jdk_is_chosen_over_a_newer_one_that_did_not(tmp_path):
    from test_floor_folders import floor_folder

    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    of_25 = floor_folder(tmp_path, "20261122-050000-floor", [25])
    floor_folder(tmp_path, "20261122-061512-floor", [21])

    assert render.siblings(run, ["FLOOR"], jdk_feature=25) == {"FLOOR": str(of_25)}
    (run / render.INPUTS).unlink()
    assert render.siblings(run, ["FLOOR"], jdk_feature=17) == {"FLOOR": str(tmp_path / "20261122-061512-floor")}


def test_of_floors_the_newest_of_the_runs_collector_is_chosen(tmp_path):
    from test_floor_folders import floor_folder

    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    of_g1 = floor_folder(tmp_path, "20261122-050000-floor", [25], collector="g1")
    floor_folder(tmp_path, "20261122-061512-floor", [25])

    assert render.siblings(run, ["FLOOR"], jdk_feature=25, collector="g1") == {"FLOOR": str(of_g1)}


def test_a_floor_of_another_collector_is_never_chosen(tmp_path):
    from test_floor_folders import floor_folder

    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    floor_folder(tmp_path, "20261122-050000-floor", [25], collector="g1")

    assert render.siblings(run, ["FLOOR"], jdk_feature=25) == {"FLOOR": None}
