"""Whether a verdict repeated: two runs' verdicts set cell by cell, a cell repeating only where the same models (or the same engine)
were named, by a lead over the same runner-up that moved at most 15%, or none in either; and each server's capacity per CPU
repeating where it moved at most 15% or each run's median lies inside the other's range."""

import pandas as pd
from test_verdict import MEMORY, passes, with_floors

from labanalysis import stats
from labanalysis.verdict import perpass, verdict_repeat

CAPACITY = {"jetty-coroutine": 2500.0, "jetty-virtual": 2000.0, "jetty-platform": 800.0, "ktor-coroutine": 500.0}


def run(memory=MEMORY, capacity=CAPACITY, drift=None, flips=None) -> pd.DataFrame:
    kwargs = {"drift": drift} if drift else {}
    return pd.concat([passes(perpass.PSS, memory, **kwargs, flips=flips), passes(perpass.DASHBOARD_CAPACITY, capacity, **kwargs)])


def cell(table: pd.DataFrame, work: str) -> pd.Series:
    return table.set_index("work").loc[work]


def test_a_run_that_gave_the_same_figures_on_another_day_repeats_every_cell():
    table = verdict_repeat.cells(run(), run(drift={1: 1.1, 2: 1.3, 3: 0.9}))

    sockets = cell(table, "many idle sockets")
    assert sockets["A"] == "coroutines, 1.25x [1.25, 1.25] over virtual threads"
    assert sockets["B / A"] == "1.00x"
    assert sockets["repeated"] == "yes: within 15%"
    assert cell(table, "many idle sockets: the engine")["repeated"] == "yes: within 15%"
    assert cell(table, "requests waiting on a slow downstream")["repeated"] == "yes: within 15%"
    assert cell(table, "a steady request rate")["repeated"] == "not measured in either"


def test_a_factor_that_moved_more_than_15_percent_did_not_repeat_though_the_same_model_won():
    table = verdict_repeat.cells(run(), run(memory={**MEMORY, "jetty-virtual": 22.0}))

    sockets = cell(table, "many idle sockets")
    assert sockets["B"] == "coroutines, 1.57x [1.57, 1.57] over virtual threads"
    assert sockets["repeated"] == "no: moved +26%, outside the other run's range"


def test_a_cell_whose_model_is_named_in_one_run_only_did_not_repeat():
    # In B's second round virtual threads took less memory than coroutines, and platform threads only 1.09x theirs: none named.
    table = verdict_repeat.cells(run(), run(memory={**MEMORY, "jetty-platform": 19.0}, flips={("jetty-virtual", 2): 10.0}))

    sockets = cell(table, "many idle sockets")
    assert sockets["B"].startswith("no winner (coroutines first)")
    assert sockets["repeated"] == "no: a model named in one run only"


def test_two_models_named_together_in_one_run_and_one_alone_in_the_other_did_not_repeat():
    table = verdict_repeat.cells(run(), run(flips={("jetty-virtual", 2): 10.0}))

    sockets = cell(table, "many idle sockets")
    assert sockets["B"].startswith("coroutines or virtual threads, virtual threads 3.43x")
    assert sockets["repeated"] == "no: another model named"


def test_two_models_named_together_in_both_runs_repeat_in_either_order_by_the_pairs_lead_over_the_rest():
    a = run(flips={("jetty-virtual", 2): 10.0})
    b = run(memory={**MEMORY, "jetty-coroutine": 17.5, "jetty-virtual": 14.0}, flips={("jetty-coroutine", 2): 10.0})
    table = verdict_repeat.cells(a, b)

    sockets = cell(table, "many idle sockets")
    assert sockets["A"].startswith("coroutines or virtual threads, virtual threads 3.43x")
    assert sockets["B"].startswith("virtual threads or coroutines, coroutines 3.43x")
    assert (sockets["B / A"], sockets["repeated"]) == ("1.00x", "yes: within 15%")


def test_two_runs_that_named_no_model_repeat_whichever_came_first():
    # Coroutines and virtual threads within 7% of each other, and of platform threads: no model named, in either order.
    close = {**MEMORY, "jetty-virtual": 15.0, "jetty-platform": 16.0}
    table = verdict_repeat.cells(run(memory=close), run(memory={**close, "jetty-virtual": 13.5}))

    sockets = cell(table, "many idle sockets")
    assert sockets["A"].startswith("no winner (coroutines first)") and sockets["B"].startswith("no winner (virtual threads first)")
    assert sockets["repeated"] == "yes: no model named in either"


def test_a_capacity_repeats_within_15_percent_or_inside_the_other_runs_range_and_says_which():
    wide = {1: 0.7, 2: 1.0, 3: 1.4}  # a figure whose passes spread as far apart as the short ladder's
    table = verdict_repeat.capacities(run(drift=wide), run(capacity={**CAPACITY, "jetty-virtual": 2500.0}, drift=wide))
    found = table.set_index(["server", "figure"])["repeated"]
    dashboard = perpass.DASHBOARD_CAPACITY.label

    assert found[("Jetty 12, coroutines", dashboard)] == "yes: within 15%"
    assert found[("Jetty 12, virtual threads", dashboard)] == "yes: each median inside the other run's range"


def test_a_capacity_measured_in_one_run_only_did_not_repeat():
    measured_in_a = run()
    in_b = run()
    in_b.loc[(in_b["server"] == "ktor-coroutine") & (in_b["figure"] == perpass.DASHBOARD_CAPACITY.key), "value"] = float("nan")
    table = verdict_repeat.capacities(measured_in_a, in_b).set_index(["server", "figure"])

    assert table.loc[("Ktor on Netty, coroutines", perpass.DASHBOARD_CAPACITY.label), "repeated"] == "no: not measured in B"


WAITING = "requests waiting on a slow downstream"


def test_a_factor_that_is_only_a_floor_in_one_run_repeats_where_the_others_lies_at_or_above_it():
    floor_in_a = with_floors(run(), {("jetty-coroutine", 3)})
    above = verdict_repeat.cells(floor_in_a, run(capacity={**CAPACITY, "jetty-coroutine": 3000.0}))
    under = verdict_repeat.cells(with_floors(run(capacity={**CAPACITY, "jetty-coroutine": 3000.0}), {("jetty-coroutine", 3)}), run())

    assert cell(above, WAITING)["A"] == "coroutines, at least 1.25x [1.25, 1.25] over virtual threads"
    assert cell(above, WAITING)["repeated"] == "yes: at or above A's floor, less 15%"
    assert cell(under, WAITING)["repeated"] == "no: moved -17%, outside the other run's range; under A's floor by more than 15%"
    assert cell(above, f"{WAITING}: the engine")["repeated"] == "yes: at or above A's floor, less 15%"


def test_two_factors_that_are_only_floors_repeat_by_their_order():
    a = with_floors(run(), {("jetty-coroutine", 1)})
    b = with_floors(run(capacity={**CAPACITY, "jetty-coroutine": 4000.0}), {("jetty-coroutine", 2)})

    assert cell(verdict_repeat.cells(a, b), WAITING)["repeated"] == "yes: both factors only floors, in the same order"


def test_a_capacity_that_is_only_a_floor_says_in_how_many_passes():
    table = verdict_repeat.capacities(with_floors(run(), {("jetty-coroutine", 1), ("jetty-coroutine", 3)}), run())
    found = table.set_index(["server", "figure"])["repeated"]

    assert found[("Jetty 12, coroutines", perpass.DASHBOARD_CAPACITY.label)] == "yes: within 15%; only a floor in 2 of 3 passes in A"
    assert found[("Jetty 12, virtual threads", perpass.DASHBOARD_CAPACITY.label)] == "yes: within 15%"


def test_the_rule_itself_on_figures_across_passes():
    a = stats.Across(100.0, 90.0, 110.0, 3)
    assert stats.repeated(a, stats.Across(114.0, 110.0, 118.0, 3)).repeated
    assert not stats.repeated(a, stats.Across(130.0, 125.0, 140.0, 3)).repeated
    assert stats.repeated(stats.Across(100.0, 60.0, 140.0, 3), stats.Across(125.0, 80.0, 150.0, 3)).how == (
        "each median inside the other run's range"
    )


def test_a_round_the_host_took_is_left_out_of_both_cells_and_capacities_and_a_cell_with_no_round_left_did_not_repeat():
    # B's second round would put virtual threads' /dashboard capacity far under platform threads'; the host took that round.
    flipped = run(drift={1: 1.0, 2: 1.0, 3: 1.0})
    flipped.loc[(flipped["server"] == "jetty-virtual") & (flipped["round"] == 2), "value"] = 100.0
    taken = flipped.assign(host=["the host took the pass" if r == 2 else "" for r in flipped["round"]])

    waiting = cell(verdict_repeat.cells(run(), taken), "requests waiting on a slow downstream")
    assert waiting["B"] == "coroutines, 1.25x [1.25, 1.25] over virtual threads"
    assert waiting["repeated"] == "yes: within 15%"
    capacities = verdict_repeat.capacities(run(), taken).set_index(["server", "figure"])
    virtual = capacities.loc[("Jetty 12, virtual threads", perpass.DASHBOARD_CAPACITY.label)]
    assert virtual["B"] == "2,000 [2,000, 2,000] over 2 passes"

    every_round = cell(verdict_repeat.cells(run(), flipped.assign(host="the host took the pass")), "requests waiting on a slow downstream")
    assert every_round["B"].startswith("no winner can be named: the host took some pass of every round")
    assert every_round["repeated"] == "no: no round left to judge in B"
    engine = cell(verdict_repeat.cells(run(), flipped.assign(host="the host took the pass")), "requests waiting on a slow downstream: the engine")
    assert engine["B"].startswith("no winner can be named: the host took some pass of every round")
    assert engine["repeated"] == "no: no round left to judge in B"
    left = verdict_repeat.capacities(run(), flipped.assign(host="the host took the pass")).set_index(["server", "figure"])
    assert left.loc[("Jetty 12, virtual threads", perpass.DASHBOARD_CAPACITY.label), "B"] == verdict_repeat.NO_ROUND_LEFT
    assert left.loc[("Jetty 12, virtual threads", perpass.DASHBOARD_CAPACITY.label), "repeated"] == "no: no round left to judge in B"
