"""`make floor`'s analysis: bytes per parked task, fitted per JVM and summarised over the repeats, on a real short run."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labanalysis.floor import floor, floor_verdicts
from labanalysis.report import render

FOLDER = "20261122-194038-floor"
FIXTURE = Path(__file__).parent / "fixtures" / "floor"


@pytest.fixture
def run_folder(fixture_copy):
    """A copy of the fixture run, for a test that changes it."""
    return fixture_copy("floor", FOLDER)


@pytest.fixture(scope="module")
def run():
    """The fixture run as loaded, shared by the tests that only read it."""
    return floor.load(FIXTURE)


@pytest.fixture(scope="module")
def figures(run):
    """per_task of the fixture run, computed once."""
    return floor.per_task(run)


def test_per_task_has_exactly_the_contract_columns_and_every_measure_of_every_jvm_kind(figures):

    assert list(figures.columns) == ["jdk", "model", "depth", "warmth", "measure", "median", "low", "high", "repeats"]
    assert set(figures["measure"]) == {"live heap", "RSS", "PSS", "NMT thread committed", "NMT stack committed"}
    # 2 JDKs x 3 models x 2 depths x 5 measures, each from the run's 3 repeats.
    assert len(figures) == 2 * 3 * 2 * 5
    assert (figures["repeats"] == 3).all()


@pytest.mark.parametrize("measure, column", list(floor.MEASURES.items()))
def test_each_figure_is_the_median_and_range_of_the_least_squares_slopes_of_its_jvms(run, figures, measure, column):
    steps = run.steps
    figures = figures.set_index(["jdk", "model", "depth", "warmth", "measure"])
    assert steps.groupby(["jdk", "model", "depth"]).ngroups > 1, "the fixture holds more than one cell"
    for (jdk, model, depth), cell in steps.groupby(["jdk", "model", "depth"]):
        by_hand = [np.polyfit(jvm["tasks"], jvm[column], 1)[0] for _, jvm in cell.groupby("repeat")]
        row = figures.loc[(jdk, model, depth, "warm", measure)]
        assert row["median"] == pytest.approx(np.median(by_hand), rel=1e-9, abs=1e-9)
        assert row["low"] == pytest.approx(min(by_hand), rel=1e-9, abs=1e-9)
        assert row["high"] == pytest.approx(max(by_hand), rel=1e-9, abs=1e-9)


def test_a_known_slope_is_found_exactly_and_the_range_is_lowest_to_highest_not_an_interval():
    # Three JVMs of one kind whose tasks cost exactly 1,000, 1,100 and 1,600 bytes, each above its own baseline.
    rows = [
        {"jdk": 25, "jdk_version": "25.0.3", "model": "virtual", "depth": 0, "warmth": "warm", "repeat": repeat, "tasks": tasks}
        | dict.fromkeys(floor.MEASURES.values(), base + cost * tasks)
        | {"threads": 25}
        for repeat, cost, base in [(1, 1000, 3e6), (2, 1100, 2e6), (3, 1600, 5e6)]
        for tasks in [0, 1000, 2000]
    ]
    figures = floor.per_task(pd.DataFrame(rows))

    heap = figures[figures["measure"] == "live heap"].iloc[0]
    assert (heap["median"], heap["low"], heap["high"], heap["repeats"]) == pytest.approx((1100, 1000, 1600, 3))


def test_the_folder_the_loaded_run_and_its_steps_give_the_same_figures(run, figures):
    expected = figures

    pd.testing.assert_frame_equal(floor.per_task(str(FIXTURE)), expected)
    pd.testing.assert_frame_equal(floor.per_task(run.steps), expected)


def test_a_floor_of_another_run_folder_format_is_refused_in_one_line(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    (run_folder / "manifest.json").write_text(json.dumps({**manifest, "runFolderFormat": 2}))

    with pytest.raises(floor.FloorFolderError, match=r"is in run-folder format 2, and this analysis reads format 1"):
        floor.load(run_folder)


def test_a_jvm_with_a_single_step_has_no_slope_and_is_not_counted_as_a_repeat(run):
    steps = run.steps
    one_step = steps[~((steps["repeat"] == 3) & (steps["model"] == "virtual") & (steps["tasks"] > 0))]

    figures = floor.per_task(one_step).set_index(["jdk", "model", "depth", "measure"])
    assert (figures.xs("virtual", level="model")["repeats"] == 2).all()
    assert (figures.xs("coroutine", level="model")["repeats"] == 3).all()


def test_the_depth_cost_is_the_difference_of_the_depths_medians_over_the_frames_between(run, figures):
    figures = figures.set_index(["jdk", "model", "depth", "measure"])["median"]
    costs = floor.depth_cost(run).set_index(["JDK", "model"])

    assert not costs.empty, "the fixture parks tasks at two depths"
    for (jdk, model), row in costs.iterrows():
        by_hand = (figures[(jdk, model, 20, "live heap")] - figures[(jdk, model, 0, "live heap")]) / 20
        assert row["per frame (B)"] == pytest.approx(by_hand, abs=0.05)


def test_what_this_run_found_a_coroutine_frame_costs_more_heap_than_a_virtual_threads_and_a_platform_threads_none(run):
    costs = floor.depth_cost(run).set_index(["JDK", "model"])["per frame (B)"]

    for jdk in (21, 25):
        assert costs[(jdk, "coroutine")] > costs[(jdk, "virtual")] > 10
        assert abs(costs[(jdk, "platform")]) < 1


def test_the_claims_are_judged_at_depth_0_on_each_jdk(run):
    claims = floor_verdicts.claims_table(run)

    assert len(claims) == len(floor_verdicts.CLAIMS) * 2
    held = claims.set_index(["model", "claim", "JDK"])["held?"]
    assert held[("coroutine", "live heap per parked task", 25)] == "held"
    assert held[("virtual", "live heap per parked task", 25)].startswith("no:")


def test_a_run_whose_jvms_all_grew_evenly_has_no_problems(run):
    assert run.problems == []


def test_a_jvm_whose_heap_per_task_moved_between_steps_is_named(run_folder):
    csv = run_folder / "floor.csv"
    steps = pd.read_csv(csv)
    moved = (steps["jdk"] == 25) & (steps["model"] == "virtual") & (steps["depth"] == 0) & (steps["repeat"] == 2) & (steps["tasks"] == 2000)
    steps.loc[moved, "live_heap_bytes"] += 1_000_000
    steps.to_csv(csv, index=False)

    problems = floor.load(run_folder).problems
    assert len(problems) == 1 and problems[0].startswith("JDK 25 virtual depth 0 warm repeat 2: its live heap per task moved between steps")
    # The same JVM, its steps even again but for a move within a tenth of its mean: not named.
    steps.loc[moved, "live_heap_bytes"] -= 1_000_000 - 100_000
    steps.to_csv(csv, index=False)
    assert floor.load(run_folder).problems == []


def test_a_row_cut_mid_write_is_dropped_and_said(run_folder):
    csv = run_folder / "floor.csv"
    csv.write_text(csv.read_text() + "25,25.0.3,virtual,0,4,1000,123\n")

    loaded = floor.load(run_folder)
    assert len(loaded.steps) == len(pd.read_csv(csv)) - 1
    assert "floor.csv: 1 row(s) cut mid-write, dropped" in loaded.problems


def test_a_failed_jvm_named_in_the_manifest_is_among_the_problems(run_folder):
    manifest_file = run_folder / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["provenance"]["status"] = "failed"
    manifest["problems"] = ["JDK 21 platform depth 20 repeat 2: exited with code 1; see jdk21-platform-depth20-repeat2.log"]
    manifest_file.write_text(json.dumps(manifest))

    assert floor.load(run_folder).problems == ["the run is failed", manifest["problems"][0]]


def test_a_folder_that_is_not_a_floor_run_is_one_line_saying_what_to_pass(tmp_path):
    with pytest.raises(floor.FloorFolderError, match="pass results/<time>-floor"):
        floor.load(tmp_path)


def test_a_floor_run_renders_its_report_with_the_table_the_claims_and_the_plots_and_the_newest_clients_run_beside_it(run_folder, fixture_copy):
    fixture_copy("clients", "20261122-075000-clients")

    report = render.render_experiment(run_folder)

    html = report.read_text()
    assert report == run_folder / "report.html"
    for section in ["Each model's floor: memory per parked task", "Twenty frames deep: frames on the heap, or live locals", "Every step", "The runs"]:
        assert f">{section}<" in html, section
    # Per task by model, depth and JDK; then the live heap and RSS at every step.
    assert html.count("data:image/png;base64,") >= 3
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert "1.21 [1.21, 1.21]" in html and "20261122-075000-clients" in html


def test_the_pick_is_the_model_holding_least_heap_and_thread_memory_a_task_with_any_within_15_percent_beside_it(run):
    picks = {row["need"]: row["pick"] for row in floor_verdicts.recommendations(run)}

    assert picks == {
        "many idle tasks parked directly: memory per task": "coroutine or virtual",
        "many idle tasks parked 20 frames deep: memory per task": "virtual",
    }


# ---- cold and warm: a floor parks each cell's tasks in JVMs of both warmths -----------------------------------------------


def _with_cold_jvms(folder: Path, cold_over_warm: float) -> None:
    """The fixture's floor.csv as a floor of both warmths writes it: each warm JVM's steps again as a cold JVM's, each measure's
    bytes per task times `cold_over_warm` (its first step's bytes kept), and the manifest saying both were parked."""
    steps = pd.read_csv(folder / "floor.csv").assign(warmth="warm")
    cold = steps.copy().assign(warmth="cold")
    for column in floor.MEASURES.values():
        first = cold.groupby(["jdk", "model", "depth", "repeat"])[column].transform("first")
        cold[column] = (first + (cold[column] - first) * cold_over_warm).round().astype("int64")
    pd.concat([steps, cold]).to_csv(folder / "floor.csv", index=False)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["settings"]["warmths"] = ["cold", "warm"]
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_a_floor_of_before_the_warmth_column_parked_every_task_warm(figures):
    assert set(figures["warmth"]) == {"warm"}


def test_cold_and_warm_jvms_are_fitted_apart_and_set_side_by_side(run_folder):
    _with_cold_jvms(run_folder, 2.5)
    frun = floor.load(run_folder)
    figures = floor.per_task(frun).set_index(["jdk", "model", "depth", "warmth", "measure"])

    warm, cold = (figures.loc[(25, "virtual", 0, w, "live heap"), "median"] for w in ("warm", "cold"))
    assert cold == pytest.approx(2.5 * warm, rel=1e-3)
    table = floor.warmth_table(frun).set_index(["JDK", "model", "depth"])
    assert table.loc[(25, "virtual", 0), "cold over warm"] == "2.50"
    assert list(floor.table(frun).index.get_level_values("warmth")[:2]) == ["cold", "warm"]


def test_the_recommendations_and_the_claims_are_the_warm_jvms(run_folder, run):
    _with_cold_jvms(run_folder, 2.5)

    assert floor_verdicts.recommendations(floor.load(run_folder)) == floor_verdicts.recommendations(run)
    assert floor_verdicts.claims_table(floor.load(run_folder)).equals(floor_verdicts.claims_table(run))
