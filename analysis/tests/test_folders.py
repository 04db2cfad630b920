"""A report shows the newest folder of each other command beside its own, and the same ones every time it is rendered again."""

import json

import pytest

from labanalysis import render


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


def test_the_newest_make_floor_folder_beside_a_run_is_its_floor(tmp_path):
    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    for name in ["20261122-050000-floor", "20261122-061512-floor", "20261122-070000-floor"]:
        (tmp_path / name).mkdir()
    for name in ["20261122-050000-floor", "20261122-061512-floor"]:
        (tmp_path / name / "floor.csv").write_text("")  # the newest has no steps yet: still being written

    assert render.siblings(run, ["FLOOR"]) == {"FLOOR": str(tmp_path / "20261122-061512-floor")}


def test_of_floors_the_newest_that_measured_the_runs_jdk_is_chosen_over_a_newer_one_that_did_not(tmp_path):
    from test_floor_folders import floor_folder

    run = tmp_path / "20261122-044957-local"
    run.mkdir()
    of_25 = floor_folder(tmp_path, "20261122-050000-floor", [25])
    floor_folder(tmp_path, "20261122-061512-floor", [21])

    assert render.siblings(run, ["FLOOR"], jdk_feature=25) == {"FLOOR": str(of_25)}
    (run / render.INPUTS).unlink()
    assert render.siblings(run, ["FLOOR"], jdk_feature=17) == {"FLOOR": str(tmp_path / "20261122-061512-floor")}
