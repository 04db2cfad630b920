"""A model made of others set against each of them, on every shape of work the verdict judges: it gains where it led the parent by
the verdict's clear lead in every round, loses where the parent led it so, and neither where the two changed places or stayed closer
than that."""

import pandas as pd
from test_verdict import DRIFT, MEMORY, SERVERS, passes

from labanalysis.verdict import parents, perpass

ON_VIRTUAL = {**SERVERS, "jetty-coroutine-virtual": ("jetty", "coroutine-virtual")}


def rows_of(figure: perpass.Figure, by_server: dict[str, float], flips: dict | None = None) -> pd.DataFrame:
    return passes(figure, by_server, DRIFT, flips, ON_VIRTUAL)


def against(table: pd.DataFrame, parent: str) -> pd.Series:
    return table.set_index("against").loc[parent]


def test_a_model_that_led_a_parent_clearly_in_every_round_gains_and_one_a_parent_led_so_loses():
    # Memory a socket holds: lower is better. On virtual threads a coroutine holds what it holds on Default, less than a virtual thread.
    table = parents.table(rows_of(perpass.HELD, {**MEMORY, "jetty-coroutine-virtual": 10.0}))

    assert list(table["model"].unique()) == ["coroutines on virtual threads"]
    assert against(table, "virtual threads")["it"] == "gains"
    assert against(table, "virtual threads")["in the rounds"] == "coroutines on virtual threads 1.75x [1.75, 1.75] over virtual threads"
    assert against(table, "coroutines")["it"] == "gains"

    slower = parents.table(rows_of(perpass.HELD, {**MEMORY, "jetty-coroutine-virtual": 14.0 * 1.3}))
    assert against(slower, "coroutines")["it"] == "loses"
    assert against(slower, "coroutines")["in the rounds"] == "coroutines 1.30x [1.30, 1.30] over coroutines on virtual threads"


def test_a_lead_under_the_clear_lead_in_some_round_or_a_change_of_places_is_neither():
    near = parents.table(rows_of(perpass.HELD, {**MEMORY, "jetty-coroutine-virtual": 14.0 * 1.05}))
    assert against(near, "coroutines")["it"] == "neither gains nor loses clearly"
    assert against(near, "coroutines")["in the rounds"].endswith("its lead under 15% in some round")

    flipped = parents.table(rows_of(perpass.HELD, {**MEMORY, "jetty-coroutine-virtual": 13.0}, {("jetty-coroutine-virtual", 2): 20.0}))
    assert against(flipped, "coroutines")["it"] == "neither gains nor loses clearly"
    assert against(flipped, "coroutines")["in the rounds"].endswith("it changed places in some round")


def test_a_run_without_the_model_or_without_its_parents_has_no_rows():
    assert parents.table(passes(perpass.HELD, MEMORY)).empty
    alone = rows_of(perpass.HELD, {"jetty-platform": 60.0, "jetty-coroutine-virtual": 14.0})
    assert parents.table(alone).empty
