"""The "who wins what" table: the best server, by how much, and whether the intervals say so."""

import math

from labanalysis import summary
from labanalysis.run import load_run
from labanalysis.summary import Figure, Value


def test_lower_is_better_picks_the_smallest_and_the_factor_to_the_runner_up():
    fig = Figure("p99", True, {"a": Value(10, 9, 11), "b": Value(25, 20, 30), "c": Value(40, 35, 45)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["runner-up"], row["by how much"]) == ("a", "b", "2.50x")
    assert row["how sure"] == "95% intervals apart"


def test_higher_is_better_picks_the_largest_and_a_tie_for_best_is_named():
    fig = Figure("req/s", False, {"a": Value(1833), "b": Value(2000), "c": Value(2000)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["runner-up"], row["by how much"]) == ("b = c", "a", "1.09x")


def test_all_equal_is_a_tie():
    fig = Figure("dropped", True, {"a": Value(0), "b": Value(0), "c": Value(0)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["by how much"]) == ("all equal", "tie")


def test_overlapping_intervals_do_not_resolve_a_winner():
    fig = Figure("slope", True, {"a": Value(40, 3, 80), "b": Value(66, -400, 540)})

    assert summary.winners([fig]).iloc[0]["how sure"] == "95% intervals overlap: not resolved"


def test_a_zero_best_is_said_in_words_not_as_an_infinite_factor():
    fig = Figure("dropped", True, {"a": Value(0), "b": Value(12254)})

    row = summary.winners([fig]).iloc[0]

    assert row["by how much"] == "0 against 12,254"
    assert row["how sure"] == "no interval to compare"


def test_a_figure_measured_for_one_server_only_has_no_winner():
    fig = Figure("p99", True, {"a": Value(10), "b": Value(math.nan)})

    assert summary.winners([fig]).empty


def test_the_fixtures_figures_name_every_server(run_folder):
    figs = summary.figures(load_run(run_folder))
    by_name = {f.name: f for f in figs}

    assert set(by_name["/json p99 (ms)"].values) == {"coroutine", "vthread", "platform"}
    assert by_name["pinned events"].values["vthread"].value == 16
    assert by_name["peak OS threads"].values["platform"].value > 300  # a thread per socket
    table = summary.winners(figs).set_index("figure")
    assert table.loc["pinned events", "best"] == "coroutine = platform"
    assert (table.loc["pinned events", "runner-up"], table.loc["pinned events", "by how much"]) == ("vthread", "0 against 16")
