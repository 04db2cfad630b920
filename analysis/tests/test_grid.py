"""The engine x model grid: the model effect along an engine, the engine effect down a model, and memory per socket split into
the model's floor and the rest; every compared figure a median over passes, every difference with its conservative interval."""

import csv
import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from labanalysis.floor import floor
from labanalysis.folder import catalogue, repeats
from labanalysis.folder.run import load_run
from labanalysis.verdict import arms, grid, opening, socket_split

COLUMNS = ["run folder", "pass", "server", "label", "engine", "model", "jdk", "figure", "value"]


def synthetic(cells: dict[tuple[str, str, str], list[float]], figure: str = grid.RSS) -> pd.DataFrame:
    """Per-pass rows of one figure: {(server, engine, model): [value of each pass]}."""
    rows = []
    for (server, engine, model), values in cells.items():
        for i, value in enumerate(values, 1):
            rows.append(["run", f"{server}-r{i}", server, f"{engine} x {model}", engine, model, 25, figure, value])
    return pd.DataFrame(rows, columns=COLUMNS)


THREE_ON_JETTY = {
    ("k", "ktor-netty", "coroutine"): [60.0, 64.0, 62.0],
    ("jc", "jetty", "coroutine"): [40.0, 44.0, 43.0],
    ("jv", "jetty", "virtual"): [20.0, 22.0, 23.0],
    ("jp", "jetty", "platform"): [66.0, 70.0, 64.0],
}


# ---- a difference between two servers --------------------------------------------------------------


def test_a_difference_is_the_difference_of_the_medians_with_the_conservative_interval_from_the_passes():
    d = grid.difference([10.0, 12.0, 14.0], [4.0, 5.0, 9.0])

    assert d.median == 12 - 5
    assert (d.low, d.high) == (10 - 9, 14 - 4)  # [min A - max B, max A - min B]
    assert d.ratio == pytest.approx(12 / 5)
    assert d.shows("A", "B") == "A higher than B in every pair of passes"


def test_an_interval_that_straddles_zero_shows_no_difference():
    d = grid.difference([10.0, 12.0, 14.0], [9.0, 11.0, 13.0])

    assert (d.median, d.low, d.high) == (1.0, -3.0, 5.0)
    assert d.shows("A", "B") == "no difference shown: the interval straddles 0"


def test_one_pass_on_either_side_gives_the_figure_but_no_interval_and_no_conclusion():
    d = grid.difference([10.0], [4.0, 5.0, 6.0])

    assert d.median == 5.0
    assert math.isnan(d.low) and math.isnan(d.high)
    assert d.shows("A", "B") == "one pass only (A: 1, B: 3): no interval, no conclusion drawn"


def test_a_ratio_is_given_between_positive_amounts_only():
    assert math.isnan(grid.difference([-1.0, 1.0], [5.0, 6.0]).ratio)
    assert grid.difference([0.0, 1.0], [5.0, 6.0]).ratio == pytest.approx(0.5 / 5.5)


# ---- model effect and engine effect ----------------------------------------------------------------


def test_the_model_effect_compares_every_pair_of_models_on_one_engine_with_hand_computed_figures():
    effects = grid.model_effects(synthetic(THREE_ON_JETTY))

    assert set(effects["within"]) == {"jetty"}  # ktor-netty runs one model: no effect along its row
    assert list(zip(effects["A"], effects["B"], strict=True)) == [("coroutine", "virtual"), ("coroutine", "platform"), ("virtual", "platform")]
    coroutine_platform = effects.iloc[1]
    assert coroutine_platform["difference"] == 43.0 - 66.0
    assert (coroutine_platform["low"], coroutine_platform["high"]) == (40.0 - 70.0, 44.0 - 64.0)
    assert coroutine_platform["shows"] == "coroutine lower than platform in every pair of passes"
    assert effects.iloc[0]["shows"] == "coroutine higher than virtual in every pair of passes"


def test_the_engine_effect_compares_one_model_on_two_engines():
    effects = grid.engine_effects(synthetic(THREE_ON_JETTY))

    assert len(effects) == 1
    row = effects.iloc[0]
    assert (row["within"], row["A"], row["B"]) == ("coroutine", "ktor-netty", "jetty")
    assert row["difference"] == 62.0 - 43.0
    assert (row["low"], row["high"]) == (60.0 - 44.0, 64.0 - 40.0)
    assert grid.missing_engine_effect(synthetic(THREE_ON_JETTY)) == ""


def test_there_is_no_engine_effect_when_only_one_engine_runs_each_model_and_it_says_why():
    without = {cell: values for cell, values in THREE_ON_JETTY.items() if cell[0] != "jc"}

    assert grid.engine_effects(synthetic(without)).empty
    assert grid.missing_engine_effect(synthetic(without)) == (
        "no model ran on two engines in these runs (coroutines on ktor-netty only; virtual threads on jetty only; platform threads on jetty only)"
    )


def test_there_is_no_model_effect_when_no_engine_runs_two_models():
    one_each = {("k", "ktor-netty", "coroutine"): [60.0], ("jv", "jetty", "virtual"): [20.0]}

    assert grid.model_effects(synthetic(one_each)).empty
    assert "ktor-netty ran coroutines only; jetty ran virtual threads only" in grid.missing_model_effect(synthetic(one_each))


# ---- the grid --------------------------------------------------------------------------------------


def test_the_grid_has_engines_as_rows_and_models_as_columns_and_says_which_cell_cannot_exist():
    cells = grid.servers_grid(synthetic(THREE_ON_JETTY))

    assert list(cells.index) == ["ktor-netty", "jetty"] and list(cells.columns) == ["coroutine", "virtual", "platform"]
    assert cells.loc["jetty", "platform"] == "jetty x platform"
    assert cells.loc["ktor-netty", "virtual"] == "(Ktor has no virtual-thread mode)"
    assert cells.loc["ktor-netty", "platform"] == "no server"


def test_a_grid_cell_gives_the_median_and_range_over_passes_or_says_there_is_one_pass():
    passes = synthetic({("jv", "jetty", "virtual"): [20.0, 22.0, 23.0], ("jp", "jetty", "platform"): [66.0]})

    figures = grid.figures_grid(passes)

    # A table for a reader: each figure by its label, not its key.
    assert figures.loc[("RSS per idle socket (KiB)", "jetty"), "virtual"] == "22 [20, 23] over 3 passes"
    assert figures.loc[("RSS per idle socket (KiB)", "jetty"), "platform"] == "66 (one pass)"


# ---- the opening sentence --------------------------------------------------------------------------


def test_the_summary_names_the_models_and_the_engines_costs_with_their_figures_from_the_data():
    sentence = opening.summary_sentence(synthetic(THREE_ON_JETTY))

    # Largest model difference on jetty: platform 66 against virtual 22 KiB, interval [64 - 23, 70 - 20].
    assert "the model costs up to 44 KiB: on jetty, platform threads 66 against virtual threads 22 KiB" in sentence
    assert "(median of 3 and 3 passes, interval [41, 50] KiB)" in sentence
    # Coroutines on ktor-netty 62 against jetty 43, interval [60 - 44, 64 - 40].
    assert "the engine costs 19 KiB: coroutines on ktor-netty 62 against on jetty 43 KiB" in sentence
    assert "[16, 24] KiB" in sentence
    assert sentence.count(".") == 1 and sentence.endswith("."), "one sentence"


def test_the_summary_says_what_is_missing_instead_of_a_figure():
    without = {cell: values for cell, values in THREE_ON_JETTY.items() if cell[0] != "jc"}

    sentence = opening.summary_sentence(synthetic(without))

    assert "the model costs up to 44 KiB" in sentence
    assert "the engine's cost is not measured: no model ran on two engines in these runs (coroutines on ktor-netty only" in sentence


def test_the_summary_says_when_a_difference_rests_on_one_pass_or_shows_nothing():
    one = opening.summary_sentence(synthetic({("jv", "jetty", "virtual"): [20.0], ("jp", "jetty", "platform"): [66.0]}))
    straddles = opening.summary_sentence(synthetic({("jv", "jetty", "virtual"): [20.0, 30.0], ("jp", "jetty", "platform"): [25.0, 28.0]}))

    assert "(one pass each: no interval, so no conclusion)" in one
    assert "no difference shown" in straddles


# ---- memory per socket: the model's floor and the rest ---------------------------------------------


def floor_table(rows: list[tuple], warmth: str = "warm") -> pd.DataFrame:
    """make floor's per-task table, every row's JVMs of `warmth`."""
    return pd.DataFrame(rows, columns=[c for c in floor.PER_TASK_COLUMNS if c != "warmth"]).assign(warmth=warmth)[floor.PER_TASK_COLUMNS]


PER_SOCKET = pd.DataFrame(
    [
        ["k", "Ktor", "ktor-netty", "coroutine", "RSS", 64_000.0, 63_000.0, 66_000.0, 3],
        ["jv", "Jetty virtual", "jetty", "virtual", "RSS", 22_000.0, math.nan, math.nan, 1],
        ["k", "Ktor", "ktor-netty", "coroutine", "PSS", 63_000.0, 62_000.0, 65_000.0, 3],
    ],
    columns=["server", "label", "engine", "model", "measure", "median", "low", "high", "passes"],
)
# RSS and PSS are set against what a parked task holds: its live heap plus its thread's committed native memory.
FLOOR = floor_table(
    [
        (25, "coroutine", 0, "live heap", 250.0, 200.0, 350.0, 3),
        (25, "coroutine", 0, "NMT thread committed", 50.0, 50.0, 50.0, 3),
        (25, "coroutine", 0, "RSS", 77.0, 70.0, 80.0, 3),  # a floor JVM's RSS: its heap's touched pages, not the task
        (25, "coroutine", 20, "live heap", 1_500.0, 1_400.0, 1_600.0, 3),
        (25, "coroutine", 20, "NMT thread committed", 0.0, 0.0, 0.0, 3),
        (25, "virtual", 0, "live heap", 1_000.0, 950.0, 1_200.0, 3),
        (25, "virtual", 0, "NMT thread committed", 100.0, 50.0, 100.0, 3),
        (21, "virtual", 0, "live heap", 9_999.0, 9_000.0, 11_000.0, 3),
        (21, "virtual", 0, "NMT thread committed", 0.0, 0.0, 0.0, 3),
    ]
)


def test_the_rest_is_the_memory_per_socket_less_what_the_models_parked_task_holds_at_depth_0_on_the_same_jdk():
    decomposed = socket_split.decomposition(PER_SOCKET, FLOOR, 25, "warm").set_index(["server", "measure"])

    ktor = decomposed.loc[("k", "RSS")]
    assert (ktor["floor"], ktor["rest"]) == (300.0, 64_000.0 - 300.0)
    assert (ktor["rest low"], ktor["rest high"]) == (63_000.0 - 400.0, 66_000.0 - 250.0)
    assert ktor["floor at depth 20"] == 1_500.0
    virtual = decomposed.loc[("jv", "RSS")]
    assert (virtual["floor"], virtual["rest"]) == (1_100.0, 22_000.0 - 1_100.0)  # JDK 25's, not 21's
    assert math.isnan(virtual["rest low"]) and virtual["note"] == "one pass: no interval"
    assert decomposed.loc[("k", "PSS"), "floor"] == 300.0, "PSS is set against the same parts as RSS"


def test_a_floor_without_the_runs_jdk_or_model_says_so():
    decomposed = socket_split.decomposition(PER_SOCKET, FLOOR, 21, "warm").set_index(["server", "measure"])

    assert decomposed.loc[("k", "RSS"), "note"] == "the floor has no coroutines at depth 0, warm, on JDK 21"
    assert math.isnan(decomposed.loc[("k", "RSS"), "rest"])
    assert decomposed.loc[("jv", "RSS"), "floor"] == 9_999.0


def test_a_socket_is_set_against_a_task_parked_as_it_was_opened_and_a_floor_without_that_warmth_says_so():
    both = pd.concat(
        [
            FLOOR,
            floor_table(
                [(25, "coroutine", 0, "live heap", 900.0, 850.0, 950.0, 3), (25, "coroutine", 0, "NMT thread committed", 50.0, 50.0, 50.0, 3)], "cold"
            ),
        ]
    )

    cold = socket_split.decomposition(PER_SOCKET, both, 25, "cold").set_index(["server", "measure"])
    warm = socket_split.decomposition(PER_SOCKET, both, 25, "warm").set_index(["server", "measure"])

    assert (cold.loc[("k", "RSS"), "floor"], warm.loc[("k", "RSS"), "floor"]) == (950.0, 300.0)
    assert cold.loc[("jv", "RSS"), "note"] == "the floor has no virtual threads at depth 0, cold, on JDK 25"


def test_without_a_floor_the_per_socket_memory_is_still_given_and_the_note_says_to_run_make_floor():
    decomposed = socket_split.decomposition(PER_SOCKET, None, 25, "cold")

    assert list(decomposed["per socket"]) == [64_000.0, 22_000.0, 63_000.0]
    assert set(decomposed["note"]) == {"no floor: run make floor"}
    assert decomposed["rest"].isna().all()


def test_load_floor_says_to_run_make_floor_when_there_is_no_folder():
    table, note = socket_split.load_floor(None)

    assert table is None and "run `make floor`" in note


def test_load_floor_reads_make_floors_folder_as_its_per_task_table():
    folder = Path(__file__).parent / "fixtures" / "floor"

    table, note = socket_split.load_floor(folder)

    pd.testing.assert_frame_equal(table, floor.per_task(folder))
    assert note == "The floor is `floor`'s."


# ---- on a real run ---------------------------------------------------------------------------------


def _add_pass(run_folder, copy_of: str, folder: str, name: str, engine: str, model: str, **outcome) -> None:
    """Adds a pass of a server `name` (engine x model as the run's manifest records it) in `folder`, with `copy_of`'s data."""
    shutil.copytree(run_folder / copy_of, run_folder / folder)
    manifest = json.loads((run_folder / "manifest.json").read_text())
    first = next(o for o in manifest["outcomes"] if o["server"] == copy_of)
    manifest["outcomes"].append(dict(first, server=name, folder=folder, **outcome))
    if name not in manifest["servers"]:
        manifest["servers"].append(name)
    catalogue = manifest.setdefault("catalogue", [])
    if not any(e["name"] == name for e in catalogue):
        catalogue.append({"name": name, "engine": engine, "model": model, "label": f"{engine}, {model}"})
    (run_folder / "manifest.json").write_text(json.dumps(manifest))


def _rss_slope(run_folder, name: str) -> float:
    """By hand from the pass's memory.csv: its rss at startup and at the end of the two socket steps, 0, 150 and 300 sockets.
    Least squares over three evenly spaced x has slope (y3 - y1) / (x3 - x1)."""
    with open(run_folder / name / "memory.csv") as f:
        rss = {int(r["sockets_open"]): float(r["bytes"]) for r in csv.DictReader(f) if r["component"] == "rss"}
    assert sorted(rss) == [0, 150, 300]
    return (rss[300] - rss[0]) / 300


def test_the_fixture_run_fills_four_cells_with_one_pass_each_and_concludes_nothing(run_folder):
    passes = grid.passes([load_run(run_folder)])

    assert set(passes["server"]) == {"ktor-coroutine", "jetty-virtual", "jetty-platform", "jetty-coroutine"}
    # A format-1 pass has memory.csv (so a live heap per socket) and the smoke profile's latency-throughput curve steps.
    assert set(passes["figure"]) == set(grid.HEADLINES)
    cells = grid.servers_grid(passes)
    assert (cells.loc["ktor-netty", "coroutine"], cells.loc["jetty", "virtual"]) == ("Ktor on Netty, coroutines", "Jetty 12, virtual threads")
    assert cells.loc["jetty", "coroutine"] == "Jetty 12, coroutines"
    # Coroutines ran on both engines: the engine effect is there, on one pass each.
    engine = grid.engine_effects(passes)
    assert set(zip(engine["within"], engine["A"], engine["B"], strict=True)) == {("coroutine", "ktor-netty", "jetty")}
    assert engine["shows"].str.startswith("one pass only").all()
    effects = grid.model_effects(passes)
    assert set(zip(effects["A"], effects["B"], strict=True)) == {("coroutine", "virtual"), ("coroutine", "platform"), ("virtual", "platform")}
    assert effects["shows"].str.startswith("one pass only").all()
    assert "(one pass each: no interval, so no conclusion)" in opening.summary_sentence(passes)


def test_repeats_of_both_coroutine_servers_give_the_engine_effect_its_interval(run_folder):
    _add_pass(run_folder, "ktor-coroutine", "ktor-coroutine-r2", "ktor-coroutine", "ktor-netty", "coroutine", repeat=2)
    _add_pass(run_folder, "jetty-coroutine", "jetty-coroutine-r2", "jetty-coroutine", "jetty", "coroutine", repeat=2)

    passes = grid.passes([load_run(run_folder)])
    effects = grid.engine_effects(passes)

    memory = effects[effects["figure"] == grid.RSS].iloc[0]
    assert (memory["within"], memory["A"], memory["B"], memory["passes"]) == ("coroutine", "ktor-netty", "jetty", "2 and 2")
    # Each repeat is a copy of its server's pass: the median, and both ends of the interval [min A - max B, max A - min B], are
    # the one difference of the two passes' RSS slopes, in KiB.
    expected = (_rss_slope(run_folder, "ktor-coroutine") - _rss_slope(run_folder, "jetty-coroutine")) / 1024
    assert (memory["difference"], memory["low"], memory["high"]) == pytest.approx((expected, expected, expected))
    assert memory["shows"] == "ktor-netty higher than jetty in every pair of passes"


def test_a_failed_pass_and_a_run_on_another_jdk_are_left_out_and_named(run_folder, tmp_path):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    failed = next(o for o in manifest["outcomes"] if o["server"] == "jetty-platform")
    failed.update(status="failed", reason="exited with 137")
    (run_folder / "manifest.json").write_text(json.dumps(manifest))
    other = tmp_path / "on-21"
    shutil.copytree(run_folder, other)
    other_manifest = json.loads((other / "manifest.json").read_text())
    other_manifest["provenance"]["jdk"] = {"home": "/usr/lib/jvm/temurin-21-jdk-amd64", "version": "21.0.8", "feature": 21}
    (other / "manifest.json").write_text(json.dumps(other_manifest))
    runs = [load_run(run_folder), load_run(other)]

    passes = grid.passes(runs)

    assert set(passes["server"]) == {"ktor-coroutine", "jetty-virtual", "jetty-coroutine"}
    assert set(passes["run folder"]) == {run_folder.name}
    assert repeats.left_out(runs) == [
        f"{run_folder.name}/jetty-platform: failed; its figures are not compared",
        "on-21: ran on JDK 21, not 25; not pooled with it",
    ]


def test_a_run_on_another_collector_is_left_out_and_named(run_folder, tmp_path):
    other = tmp_path / "on-g1"
    shutil.copytree(run_folder, other)
    other_manifest = json.loads((other / "manifest.json").read_text())
    other_manifest["collector"] = "g1"
    (other / "manifest.json").write_text(json.dumps(other_manifest))
    runs = [load_run(run_folder), load_run(other)]

    assert set(grid.passes(runs)["run folder"]) == {run_folder.name}
    assert repeats.left_out(runs) == ["on-g1: ran on G1, not ZGC; not pooled with it"]


def test_the_fixtures_memory_per_socket_is_the_slope_over_its_memory_csv_snapshots(run_folder):
    run = load_run(run_folder)

    per_socket = socket_split.per_socket([run]).set_index(["server", "measure"])
    passes = grid.passes([run])

    rss = per_socket.loc[("jetty-platform", "RSS"), "median"]
    # jetty-platform's memory.csv: rss 173,768,704, 188,694,528 and 194,928,640 B at 0, 150 and 300 sockets: 70,533 B a socket.
    assert rss == pytest.approx(_rss_slope(run_folder, "jetty-platform"))
    assert rss == pytest.approx((194_928_640 - 173_768_704) / 300)
    headline = passes[(passes["server"] == "jetty-platform") & (passes["figure"] == grid.RSS)]["value"].iloc[0]
    assert headline == pytest.approx(rss / 1024)


def test_the_decomposition_plot_stacks_each_servers_rest_on_its_models_floor():
    import matplotlib

    matplotlib.use("Agg")
    from labanalysis.report import grid_plots

    decomposed = socket_split.decomposition(PER_SOCKET, FLOOR, 25, "warm")

    ax = grid_plots.decomposition(decomposed).axes[0]

    bars = [(p.get_x(), p.get_width()) for p in ax.patches]
    # Per server, a floor bar from 0 and the rest's bar from the floor's end to its memory per socket (KiB).
    expected = [(0, 300 / 1024), (300 / 1024, (64_000 - 300) / 1024), (0, 1_100 / 1024), (1_100 / 1024, (22_000 - 1_100) / 1024)]
    assert bars == [pytest.approx(bar) for bar in expected]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Ktor", "Jetty virtual"]


# ---- on a run with memory.csv: the per-pass live heap and RSS slopes ---------------------------------


def test_where_memory_csv_exists_the_grid_compares_each_passs_live_heap_and_rss_slopes(repeats_folder):
    passes = grid.passes([load_run(repeats_folder)])

    live = passes[(passes["server"] == "vthread") & (passes["figure"] == grid.LIVE_HEAP)]
    # make_repeats_run.py: vthread's live heap grows 2,000, 2,100 and 1,900 bytes a socket in its three passes.
    assert sorted(live["value"] * 1024) == pytest.approx([1900, 2000, 2100])
    summary = grid.per_server(passes).set_index(["server", "figure"])
    assert tuple(summary.loc[("platform", grid.RSS), ["median", "low", "high", "passes"]]) == pytest.approx(
        (26000 / 1024, 25500 / 1024, 27000 / 1024, 3)
    )
    effect = grid.model_effects(passes).set_index("figure").loc[grid.LIVE_HEAP]
    assert (effect["A"], effect["B"]) == ("virtual", "platform")
    assert (effect["low"] * 1024, effect["high"] * 1024) == pytest.approx((1900 - 3200, 2100 - 2900))
    assert effect["shows"] == "virtual lower than platform in every pair of passes"
    # The whole cost leads: what a socket holds in make_repeats_run.py, its live heap, NMT's categories but the heap, and the kernel's
    # memory and TCP buffers; platform's median pass 3,000 + 20,370 + 5,000 = 28,370 B (27.7 KiB), vthread's 2,000 + 460 + 3,500.
    held = passes[passes["figure"] == grid.HELD].set_index("server")["value"] * 1024
    assert sorted(held["vthread"]) == pytest.approx([5750, 5960, 6170])
    assert opening.summary_sentence(passes).startswith(
        "In memory an idle socket holds, the model costs up to 21.88 KiB: on jetty, platform threads 27.71"
    )
    # Without what a socket holds, PSS: platform's median 25,900 B (25.3 KiB) against vthread's 4,900.
    pss_only = passes[passes["figure"] != grid.HELD]
    assert opening.summary_sentence(pss_only).startswith("In PSS per idle socket, the model costs up to 20.51 KiB: on jetty, platform threads 25.29")


def test_the_decomposition_takes_the_live_heap_per_socket_from_memory_csv(repeats_folder):
    per_socket = socket_split.per_socket([load_run(repeats_folder)]).set_index(["server", "measure"])

    assert tuple(per_socket.loc[("vthread", "live heap"), ["median", "low", "high"]]) == pytest.approx((2000, 1900, 2100))
    assert per_socket.loc[("platform", "RSS"), "median"] == pytest.approx(26000)


# ---- the lab's changes to an engine: an arm against its server ------------------------------------


def test_an_arm_is_set_against_its_own_server_and_stays_out_of_the_grid_and_its_effects():
    cells = dict(THREE_ON_JETTY)
    cells[("jetty-virtual", "jetty", "virtual")] = [20.0, 22.0, 23.0]
    cells[("jetty-virtual-without-fill-lock", "jetty", "virtual")] = [15.0, 16.0, 18.0]
    del cells[("jv", "jetty", "virtual")]
    passes = synthetic(cells)

    changes = arms.change_effects(passes)
    assert len(changes) == 1
    row = changes.iloc[0]
    assert (row["A server"], row["B server"]) == ("jetty-virtual-without-fill-lock", "jetty-virtual")
    assert (row["within"], row["A"], row["B"]) == (catalogue.label("jetty-virtual"), "without fill-lock", "every change")
    assert row["shows"] == "without fill-lock lower than every change in every pair of passes"
    assert row["difference"] == 16.0 - 22.0
    assert (row["low"], row["high"]) == (15.0 - 23.0, 18.0 - 20.0)
    # The grid compares engines as the lab runs them: the arm fills no cell and enters no model or engine effect.
    assert "jetty-virtual-without-fill-lock" not in set(grid.model_effects(passes)["A server"]) | set(grid.model_effects(passes)["B server"])
    assert grid.servers_grid(passes).loc["jetty", "virtual"] == "jetty x virtual"


def test_an_arm_without_its_server_in_the_run_has_nothing_to_be_set_against():
    passes = synthetic({("jetty-virtual-without-fill-lock", "jetty", "virtual"): [18.0, 19.0]})

    assert arms.change_effects(passes).empty


def test_an_arm_in_a_real_run_is_read_as_its_server_without_the_change(run_folder):
    _add_pass(run_folder, "jetty-virtual", "jetty-virtual-without-fill-lock", "jetty-virtual-without-fill-lock", "jetty", "virtual")

    passes = grid.passes([load_run(run_folder)])
    changes = arms.change_effects(passes)
    assert set(changes["A server"]) == {"jetty-virtual-without-fill-lock"}
    assert set(changes["figure"]) == set(grid.headlines(passes))
    # A copy of the server's own pass: every difference is 0, on one pass each.
    assert (changes["difference"].dropna() == 0).all()
    assert changes["shows"].str.startswith("one pass only").all()
    assert "jetty-virtual-without-fill-lock" not in set(grid.model_effects(passes)["A server"])
