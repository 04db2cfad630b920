"""The "who wins what" table: the best server by its median across passes, by how much, and whether the ranges across passes say
so; one pass per server concludes nothing, and an interval within one pass never names a winner, though a lead inside the passes'
own intervals is not resolved, as in the verdict."""

import math

import pandas as pd
import pytest

from labanalysis.folder.run import load_run
from labanalysis.stats import Across
from labanalysis.verdict import perpass, summary
from labanalysis.verdict.summary import ServersOnFigure

ONE = math.nan  # no low or high: one pass


def test_lower_is_better_picks_the_smallest_median_and_the_factor_to_the_runner_up():
    fig = ServersOnFigure("p99", True, {"a": Across(10, 9, 11, 3), "b": Across(25, 20, 30, 3), "c": Across(40, 35, 45, 3)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["runner-up"], row["by how much"]) == ("a", "b", "2.50x")
    assert row["how sure"] == "apart across passes"


def test_higher_is_better_picks_the_largest_and_a_tie_for_best_is_named():
    fig = ServersOnFigure("req/s", False, {"a": Across(1833, 1800, 1850, 3), "b": Across(2000, 1990, 2000, 3), "c": Across(2000, 1995, 2000, 3)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["runner-up"], row["by how much"]) == ("b = c", "a", "1.09x")
    assert row["how sure"] == "apart across passes"


def test_all_equal_is_a_tie():
    fig = ServersOnFigure("dropped", True, {"a": Across(0, 0, 0, 3), "b": Across(0, 0, 0, 3)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["by how much"]) == ("all equal", "tie")


def test_overlapping_ranges_across_passes_do_not_resolve_a_winner():
    fig = ServersOnFigure("p99", True, {"a": Across(6, 5, 21, 3), "b": Across(22, 20, 25, 3)})

    assert summary.winners([fig]).iloc[0]["how sure"] == "overlap across passes: not resolved"


def test_with_one_pass_per_server_no_comparison_is_concluded_however_far_apart():
    fig = ServersOnFigure("p99", True, {"a": Across(5.9, ONE, ONE, 1), "b": Across(182, ONE, ONE, 1)})

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["by how much"]) == ("a", "30.85x")
    assert row["how sure"] == "one pass: no comparison can be concluded"


def test_a_zero_best_is_said_in_words_not_as_an_infinite_factor():
    fig = ServersOnFigure("dropped", True, {"a": Across(0, 0, 0, 3), "b": Across(12254, 12000, 13000, 3)})

    assert summary.winners([fig]).iloc[0]["by how much"] == "0 against 12,254"


def test_a_winner_ahead_in_every_round_is_named_though_the_hosts_drift_made_the_ranges_overlap():
    # Round by round, the host slowed both alike (x1.0, x1.3, x0.8): b was 1.2 times a in each.
    a, b = {("run", 1): 10.0, ("run", 2): 13.0, ("run", 3): 8.0}, {("run", 1): 12.0, ("run", 2): 15.6, ("run", 3): 9.6}
    fig = ServersOnFigure("pss", True, {"a": Across(10, 8, 13, 3), "b": Across(12, 9.6, 15.6, 3)}, rounds={"a": a, "b": b})

    assert summary.winners([fig]).iloc[0]["how sure"] == "ahead in every round"


def test_with_rounds_the_table_names_the_server_the_rounds_favour_as_the_verdict_does_and_its_factor_is_theirs():
    # b's median is the lower, from a round in which the host was fast for b alone; round by round a was lower in two of three.
    a, b = {("run", 1): 10.0, ("run", 2): 10.0, ("run", 3): 20.0}, {("run", 1): 11.0, ("run", 2): 9.5, ("run", 3): 22.0}
    fig = ServersOnFigure("pss", True, {"a": Across(10, 10, 20, 3), "b": Across(9.5, 9.5, 22, 3)}, rounds={"a": a, "b": b})
    # Over the round's geometric mean: a 0.953, 1.026, 0.953 (median 0.953); b 1.049, 0.975, 1.049 (median 1.049).

    row = summary.winners([fig]).iloc[0]

    assert (row["best"], row["runner-up"]) == ("a", "b")
    # b over a in each round: 1.10, 0.95, 1.10, median 1.10, and the round that put b ahead below 1.
    assert row["by how much"] == "1.10x [0.95, 1.10]"
    assert row["how sure"] == "changed places in some round: not resolved"


def test_a_figure_measured_for_one_server_only_has_no_winner():
    fig = ServersOnFigure("p99", True, {"a": Across(10, 9, 11, 3), "b": Across(math.nan, math.nan, math.nan, 0)})

    assert summary.winners([fig]).empty


def test_the_fixtures_headline_figures_are_medians_across_passes_with_their_ranges(repeats_folder):
    figs = {f.key: f for f in summary.figures(perpass.table([load_run(repeats_folder)]))}

    # make_repeats_run.py: /json p99 vthread 5, 6, 7 ms; platform 20, 25, 22 ms.
    assert figs[perpass.JSON_P99.key].values["vthread"] == Across(6.0, 5.0, 7.0, 3)
    assert figs[perpass.JSON_P99.key].values["platform"] == Across(22.0, 20.0, 25.0, 3)
    assert figs[perpass.LIVE_HEAP.key].values["vthread"] == Across(2000 / 1024, 1900 / 1024, 2100 / 1024, 3)
    # The tables a reader sees name each figure by its label, not its key.
    assert summary.values_table(list(figs.values())).loc["/json p99 (ms)", "vthread"] == "6 [5, 7] over 3 passes"
    table = summary.winners(list(figs.values())).set_index("figure")
    assert table.loc["live heap per idle socket (KiB)", "how sure"] == "ahead in every round"
    # p50 round by round: vthread 1.0, 1.2, 0.9 ms, platform 1.1, 0.95, 1.3 ms: platform was ahead in round 2, so no winner is called.
    assert table.loc["/json p50 (ms)", "how sure"].startswith("changed places in some round: not resolved")


def test_a_latency_winner_says_when_the_load_generator_was_the_bottleneck_in_a_pass_behind_it(repeats_folder):
    table = summary.winners(summary.figures(perpass.table([load_run(repeats_folder)]))).set_index("figure")

    assert table.loc["/json p99 (ms)", "how sure"] == (
        "ahead in every round; the load generator was the bottleneck in 1 of these servers' passes, whose latency measures it"
    )
    assert "bottleneck" not in table.loc["RSS per idle socket (KiB)", "how sure"]


def test_a_latency_winner_says_when_a_server_behind_it_was_saturated(repeats_folder):
    # platform-r3's CPUs 95% busy in every /json second, by the server itself: its latency holds a queue, k6's and the wire's alike.
    path = repeats_folder / "platform-r3" / "cpu.csv"
    frame = pd.read_csv(path)
    frame.loc[frame["phase"] == "json", ["server_cpus_busy", "server"]] = 0.95
    frame.to_csv(path, index=False)

    table = summary.winners(summary.figures(perpass.table([load_run(repeats_folder)]))).set_index("figure")

    assert table.loc["/json p99 (ms)", "how sure"].endswith("; the server was saturated in 1 of these servers' passes, whose latency holds its queue")
    assert "saturated" not in table.loc["RSS per idle socket (KiB)", "how sure"]


def test_a_run_with_one_pass_per_server_names_every_server_and_concludes_nothing(run_folder):
    figs = {f.key: f for f in summary.figures(perpass.table([load_run(run_folder)]))}

    assert set(figs[perpass.JSON_P99.key].values) == {"ktor-coroutine", "jetty-virtual", "jetty-platform", "jetty-coroutine"}
    # pinned.csv: jetty-virtual's has 4 rows under its header, every other pass's a header only.
    assert figs[perpass.PINNED.key].values["jetty-virtual"].median == 4
    # A format-1 pass has memory.csv: the live heap per socket is the least-squares slope of its live_heap snapshots
    # (jetty-virtual's: 11,981,664, 14,288,976 and 16,607,128 B at 0, 150 and 300 sockets, so (y3 - y1) / (x3 - x1)), in KiB.
    assert figs[perpass.LIVE_HEAP.key].values["jetty-virtual"].median == pytest.approx((16_607_128 - 11_981_664) / 300 / 1024)
    table = summary.winners(list(figs.values())).set_index("figure")
    # The three with none tie for best, in the run's pass order.
    assert (table.loc["pinned events", "best"], table.loc["pinned events", "by how much"]) == (
        "ktor-coroutine = jetty-coroutine = jetty-platform",
        "0 against 4",
    )
    # Nothing is concluded; the latency rows go on to say how this real run's passes were held back (their checks, not ours).
    assert all(sure == "equal" or sure.startswith("one pass: no comparison can be concluded") for sure in table["how sure"])


def test_a_lead_that_held_in_every_round_but_inside_the_passes_own_intervals_in_some_is_not_resolved():
    rounds = {"a": {("run", 1): 3.0, ("run", 2): 3.3, ("run", 3): 2.8}, "b": {("run", 1): 4.5, ("run", 2): 5.0, ("run", 3): 4.2}}
    values = {"a": Across(3.0, 2.8, 3.3, 3), "b": Across(4.5, 4.2, 5.0, 3)}
    precise = {"a": {r: (v * 0.9, v * 1.1) for r, v in rounds["a"].items()}, "b": {r: (v * 0.9, v * 1.1) for r, v in rounds["b"].items()}}
    loose = {"a": {r: (v * 0.5, v * 1.5) for r, v in rounds["a"].items()}, "b": {r: (v * 0.5, v * 1.5) for r, v in rounds["b"].items()}}

    def sure(intervals) -> str:
        return summary.winners([ServersOnFigure("json_wire_p99_ms", True, values, rounds=rounds, intervals=intervals)]).iloc[0]["how sure"]

    assert sure(precise) == "ahead in every round"
    assert sure(loose) == "ahead in every round, inside the passes' own intervals in some: not resolved"


def test_a_capacity_that_is_only_a_floor_is_led_by_at_least_its_factor_and_a_lead_over_one_is_not_resolved():
    rounds = {"a": {("run", 1): 6000.0, ("run", 2): 6200.0, ("run", 3): 5800.0}, "b": {("run", 1): 1500.0, ("run", 2): 1550.0, ("run", 3): 1450.0}}
    values = {"a": Across(6000, 5800, 6200, 3), "b": Across(1500, 1450, 1550, 3)}

    def winner(floors) -> pd.Series:
        return summary.winners([ServersOnFigure("dashboard_capacity_per_cpu", False, values, rounds=rounds, floors=floors)]).iloc[0]

    assert (winner({})["by how much"], winner({})["how sure"]) == ("4.00x [4.00, 4.00]", "ahead in every round")
    assert (winner({"a": {("run", 3)}})["by how much"], winner({"a": {("run", 3)}})["how sure"]) == (
        "at least 4.00x [4.00, 4.00]",
        "ahead in every round",
    )
    assert winner({"b": {("run", 1)}})["how sure"] == "ahead in every round, over a capacity that is only a floor in some: not resolved"
