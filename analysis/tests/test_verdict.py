"""The verdict: for each shape of work, the model to pick on the engine that runs the most models, named only where it led every other
model by at least 15% in every round (or, where the first few were closer than that, all of them, where all led the rest so); its lead
across rounds; the engine's share beside it, named by the same rule; and a shape this run did not measure said so, with the
command that measures it."""

import math

import pandas as pd

from labanalysis.folder import repeats
from labanalysis.verdict import perpass, verdict, verdict_words

SERVERS = {
    "jetty-coroutine": ("jetty", "coroutine"),
    "jetty-virtual": ("jetty", "virtual"),
    "jetty-platform": ("jetty", "platform"),
    "ktor-coroutine": ("ktor-netty", "coroutine"),
}
DRIFT = {1: 1.0, 2: 1.25, 3: 0.85}  # the host, round by round


def passes(
    figure: perpass.Figure, by_server: dict[str, float], drift: dict[int, float] = DRIFT, flips: dict | None = None, servers: dict = SERVERS
) -> pd.DataFrame:
    """perpass.table's rows of one figure: each server's value in each round, times the round's drift; `flips` sets a server's value
    in one round outright ({(server, round): value}); `servers` gives each server's (engine, model)."""
    rows = []
    for server, value in by_server.items():
        engine, model = servers[server]
        for r, d in drift.items():
            name = server if r == 1 else f"{server}-r{r}"
            found = (flips or {}).get((server, r), value * d)
            base = dict(zip(repeats.PASS_COLUMNS, ["run", name, server, server, engine, model, "25"], strict=True))
            rows.append({**base, "round": r, "figure": figure.key, "value": found, "bottleneck": "", "saturated": ""})
    return pd.DataFrame(rows)


MEMORY = {"jetty-coroutine": 14.0, "jetty-virtual": 17.5, "jetty-platform": 60.0, "ktor-coroutine": 48.0}


def row(table: pd.DataFrame, work: str) -> pd.Series:
    return table.set_index("work").loc[work]


def test_the_model_that_did_better_in_every_round_is_named_with_its_factor_over_the_runner_up():
    table = verdict.table(passes(perpass.PSS, MEMORY))

    sockets = row(table, "many idle sockets")
    assert sockets["the model to pick"] == "coroutines"
    assert sockets["by how much"] == "1.25x [1.25, 1.25] over virtual threads, in 3 rounds"
    assert sockets["its figure"] == "coroutines: 14 KiB [11.90, 17.50]"


def test_a_model_is_judged_on_the_engine_that_runs_the_most_models_and_the_engine_beside_it():
    # Ktor's coroutines would win outright; the model is still judged among Jetty's three.
    table = verdict.table(passes(perpass.PSS, {**MEMORY, "ktor-coroutine": 5.0}))

    sockets = row(table, "many idle sockets")
    assert sockets["the model to pick"] == "coroutines"
    assert sockets["the engine"] == "coroutines: Ktor 3.5.2 on Netty 4.2.20 2.80x [2.80, 2.80] over Jetty 12.1.12"


def test_idle_sockets_are_judged_on_what_a_socket_holds_not_on_pss_where_a_pass_measured_both():
    # PSS carries heap pages the collector touched and no longer uses: here it ranks virtual threads first, what they hold does not.
    held = passes(perpass.HELD, MEMORY)
    pss = passes(perpass.PSS, {**MEMORY, "jetty-coroutine": 30.0})
    table = verdict.table(pd.concat([held, pss]))

    sockets = row(table, "many idle sockets")
    assert sockets["judged on"] == "memory an idle socket holds (live heap + native + kernel, KiB)"
    assert sockets["the model to pick"] == "coroutines"
    assert verdict.table(pss).set_index("work").loc["many idle sockets", "the model to pick"] == "virtual threads"


def test_an_engine_that_measured_nothing_is_named_as_not_measured_not_as_no_engine_effect():
    # Ktor's capacity had no fit in any pass (its path still compiling, one step held): the engine effect is unknown, not absent.
    capacity = perpass.DASHBOARD_CAPACITY
    table = verdict.table(passes(capacity, {**MEMORY, "ktor-coroutine": math.nan}))

    assert row(table, "requests waiting on a slow downstream")["the engine"] == "coroutines on Ktor 3.5.2 on Netty 4.2.20: not measured in this run"
    assert (
        row(verdict.table(passes(capacity, {k: v for k, v in MEMORY.items() if k != "ktor-coroutine"})), "requests waiting on a slow downstream")[
            "the engine"
        ]
        == "one engine per model: no engine effect"
    )


def test_two_models_that_changed_places_in_some_round_are_named_together_where_both_led_the_third_clearly():
    flipped = passes(perpass.PSS, MEMORY, flips={("jetty-virtual", 2): 15.0})  # 15 against coroutines' 17.5 in round 2

    sockets = row(verdict.table(flipped), "many idle sockets")

    assert sockets["the model to pick"] == "coroutines or virtual threads: neither led the other by 15% in every round"
    assert sockets["by how much"].endswith("; coroutines 1.25x [0.86, 1.25] over virtual threads")


def test_a_model_that_came_out_ahead_of_the_first_in_some_round_leaves_no_winner_where_no_two_led_the_rest():
    flipped = passes(perpass.PSS, {**MEMORY, "jetty-platform": 18.0}, flips={("jetty-virtual", 2): 15.0})

    sockets = row(verdict.table(flipped), "many idle sockets")

    assert sockets["the model to pick"] == (
        "no winner can be named: virtual threads came out ahead of coroutines in some round, and coroutines and virtual threads"
        " were not both shown to lead platform threads by 15% in every round"
    )
    assert sockets["by how much"].startswith("1.25x [0.86, 1.25]")


def test_a_winner_must_beat_every_other_model_not_only_the_runner_up():
    flipped = passes(perpass.PSS, MEMORY, flips={("jetty-platform", 3): 10.0})

    assert row(verdict.table(flipped), "many idle sockets")["the model to pick"].startswith("no winner can be named: platform threads")


def test_higher_is_better_for_a_capacity():
    capacity = {"jetty-coroutine": 20000.0, "jetty-virtual": 24000.0, "jetty-platform": 15000.0, "ktor-coroutine": 9000.0}

    served = row(verdict.table(passes(perpass.JSON_CAPACITY, capacity)), "requests that wait on nothing")

    assert served["judged on"] == perpass.JSON_CAPACITY.label
    assert (served["the model to pick"], served["by how much"]) == ("virtual threads", "1.20x [1.20, 1.20] over coroutines, in 3 rounds")


def test_cpu_per_request_is_judged_on_what_a_request_cost_at_the_steady_rate_and_lower_is_better():
    cost = {"jetty-coroutine": 150.0, "jetty-virtual": 160.0, "jetty-platform": 240.0, "ktor-coroutine": 140.0}

    cpu = row(verdict.table(passes(perpass.CPU, cost)), "CPU per request")

    assert cpu["judged on"].startswith(perpass.CPU.label)
    assert cpu["the model to pick"] == "coroutines or virtual threads: neither led the other by 15% in every round"


def test_cpu_per_request_is_judged_less_the_jit_where_a_pass_split_its_compilers_out():
    # All in, Ktor's compilers still at work made its requests look dearer than Jetty's; less them, it is the cheaper engine.
    all_in = passes(perpass.CPU, {"jetty-coroutine": 85.0, "jetty-virtual": 88.0, "jetty-platform": 100.0, "ktor-coroutine": 88.0})
    less_jit = passes(perpass.CPU_LESS_JIT, {"jetty-coroutine": 76.0, "jetty-virtual": 78.0, "jetty-platform": 90.0, "ktor-coroutine": 60.0})

    cpu = row(verdict.table(pd.concat([all_in, less_jit])), "CPU per request")

    assert cpu["judged on"].startswith(perpass.CPU_LESS_JIT.label)
    assert cpu["the engine"] == "coroutines: Ktor 3.5.2 on Netty 4.2.20 1.27x [1.27, 1.27] over Jetty 12.1.12"
    assert row(verdict.table(all_in), "CPU per request")["judged on"].startswith(perpass.CPU.label), "a run from before the split"


def test_a_lead_under_15_percent_in_some_round_names_no_model_alone_though_it_held_in_every_round():
    # Coroutines took less memory than virtual threads in every round, by 1.07x; a second run may move a figure that far and
    # still repeat it.
    close = passes(perpass.PSS, {**MEMORY, "jetty-virtual": 15.0})

    sockets = row(verdict.table(close), "many idle sockets")

    assert sockets["the model to pick"] == "coroutines or virtual threads: neither led the other by 15% in every round"
    # The lead that named the two is virtual threads' over platform threads; coroutines' over virtual threads is shown beside it.
    assert (
        sockets["by how much"]
        == "virtual threads 4.00x [4.00, 4.00] over platform threads, in 3 rounds; coroutines 1.07x [1.07, 1.07] over virtual threads"
    )
    assert verdict.sentence(close).startswith("Pick coroutines or virtual threads for many idle sockets (virtual threads 4.00x")


def test_where_no_model_led_the_others_by_15_percent_in_every_round_none_is_named():
    close = passes(perpass.PSS, {**MEMORY, "jetty-virtual": 15.0, "jetty-platform": 16.0})

    sockets = row(verdict.table(close), "many idle sockets")

    assert sockets["the model to pick"] == "no winner can be named: no model led the others by 15% in every round"
    assert sockets["by how much"] == "1.07x [1.07, 1.07] over virtual threads, in 3 rounds"


def test_an_engine_is_named_by_the_same_lead_as_a_model():
    close = row(verdict.table(passes(perpass.PSS, {**MEMORY, "ktor-coroutine": 15.4})), "many idle sockets")
    clear = row(verdict.table(passes(perpass.PSS, MEMORY)), "many idle sockets")

    assert (
        close["the engine"]
        == "coroutines: Jetty 12.1.12 1.10x [1.10, 1.10] over Ktor 3.5.2 on Netty 4.2.20: no winner can be named, its lead under 15% in some round"
    )
    assert clear["the engine"] == "coroutines: Jetty 12.1.12 3.43x [3.43, 3.43] over Ktor 3.5.2 on Netty 4.2.20"


def with_intervals(rows: pd.DataFrame, widths: dict[str, float]) -> pd.DataFrame:
    """`rows` with each pass's own interval: its value times (1 - width, 1 + width), by server ({server: width}); none elsewhere."""
    width = rows["server"].map(widths)
    return rows.assign(within_pass_low=rows["value"] * (1 - width), within_pass_high=rows["value"] * (1 + width))


P99 = {"jetty-coroutine": 3.0, "jetty-virtual": 4.5, "jetty-platform": 9.0, "ktor-coroutine": 7.0}


def test_a_lead_inside_the_passes_own_intervals_names_no_model_though_it_held_clearly_in_every_round():
    # Coroutines' p99 1.5x under virtual threads' in every round: named where each pass measured its p99 to within 10%, not where
    # each pass's own interval spans +-40% of it.
    precise = row(verdict.table(with_intervals(passes(perpass.JSON_WIRE_P99, P99), dict.fromkeys(P99, 0.1))), "a steady request rate")
    loose = row(verdict.table(with_intervals(passes(perpass.JSON_WIRE_P99, P99), dict.fromkeys(P99, 0.4))), "a steady request rate")

    assert precise["the model to pick"] == "coroutines"
    assert loose["the model to pick"] == "no winner can be named: its lead lay inside the passes' own intervals in some round"
    assert loose["by how much"] == "1.50x [1.50, 1.50] over virtual threads, in 3 rounds"


def test_an_engine_whose_lead_lay_inside_the_passes_own_intervals_is_not_named():
    loose = row(verdict.table(with_intervals(passes(perpass.JSON_WIRE_P99, P99), dict.fromkeys(P99, 0.5))), "a steady request rate")

    assert loose["the engine"] == (
        "coroutines: Jetty 12.1.12 2.33x [2.33, 2.33] over Ktor 3.5.2 on Netty 4.2.20: no winner can be named, "
        "its lead lay inside the passes' own intervals in some round"
    )


def with_floors(rows: pd.DataFrame, floors: set[tuple[str, int]]) -> pd.DataFrame:
    """`rows` with the passes of `floors` ({(server, round)}) marked as measuring only a floor under their capacity (perpass.FLOORS)."""
    return rows.assign(floor=[(s, r) in floors for s, r in zip(rows["server"], rows["round"], strict=True)])


DASHBOARD = {"jetty-coroutine": 2500.0, "jetty-virtual": 2000.0, "jetty-platform": 800.0, "ktor-coroutine": 500.0}
WAITING = "requests waiting on a slow downstream"


def test_a_lead_whose_leader_answered_all_of_the_ladders_top_in_some_round_is_at_least_its_factor():
    # Coroutines' fullest step was the ladder's top in round 3 and it answered all of it: what a core served is a floor there.
    rows = with_floors(passes(perpass.DASHBOARD_CAPACITY, DASHBOARD), {("jetty-coroutine", 3)})

    waiting = row(verdict.table(rows), WAITING)

    assert waiting["the model to pick"] == "coroutines"
    assert waiting["by how much"] == "at least 1.25x [1.25, 1.25] over virtual threads, in 3 rounds"
    assert waiting["the engine"] == "coroutines: Jetty 12.1.12 at least 5.00x [5.00, 5.00] over Ktor 3.5.2 on Netty 4.2.20"
    assert "(at least 1.25x [1.25, 1.25] over virtual threads in /dashboard capacity per CPU)" in verdict.sentence(rows)


def test_a_lead_over_a_capacity_that_is_only_a_floor_names_no_model_nor_engine():
    rows = with_floors(passes(perpass.DASHBOARD_CAPACITY, DASHBOARD), {("jetty-virtual", 2), ("ktor-coroutine", 1)})

    waiting = row(verdict.table(rows), WAITING)

    assert waiting["the model to pick"] == f"no winner can be named: virtual threads {verdict_words.FLOORED}"
    assert waiting["the engine"] == (
        f"coroutines: Jetty 12.1.12 5.00x [5.00, 5.00] over Ktor 3.5.2 on Netty 4.2.20: no winner can be named, "
        f"Ktor 3.5.2 on Netty 4.2.20 {verdict_words.FLOORED}"
    )


def test_one_round_names_no_winner():
    sockets = row(verdict.table(passes(perpass.PSS, MEMORY, drift={1: 1.0})), "many idle sockets")

    assert sockets["the model to pick"] == "no winner can be named: one round: run more passes"


CAPACITY = {"jetty-coroutine": 4_000.0, "jetty-virtual": 3_500.0, "jetty-platform": 1_200.0, "ktor-coroutine": 400.0}


def _host_took(rows: pd.DataFrame, taken: set[tuple[str, int]]) -> pd.DataFrame:
    """`rows` with the host's mark on the passes of `taken` ({(server, round)})."""
    marks = ["the host took the pass" if key in taken else "" for key in zip(rows["server"], rows["round"], strict=True)]
    return rows.assign(host=marks)


def test_a_round_the_host_took_in_some_pass_is_left_out_whole_of_a_figure_its_cpu_moves():
    # Round 2 would put coroutines far ahead of virtual threads; the host took its platform pass, and the two rounds left name both.
    rows = _host_took(passes(perpass.DASHBOARD_CAPACITY, CAPACITY, flips={("jetty-virtual", 2): 1_000.0}), {("jetty-platform", 2)})

    waiting = row(verdict.table(rows), WAITING)

    assert waiting["the model to pick"] == "coroutines or virtual threads: neither led the other by 15% in every round"
    assert (
        waiting["by how much"]
        == "virtual threads 2.92x [2.92, 2.92] over platform threads, in 2 rounds; coroutines 1.14x [1.14, 1.14] over virtual threads"
    )
    assert perpass.left_out(rows) == (
        "Left out of the verdict, who wins what, the grid and a comparison of runs, as rounds the host took, but for the memory a "
        "pass counts at rest: round 2 of `run` (jetty-platform-r2: the host took the pass)."
    )
    assert perpass.left_out(passes(perpass.DASHBOARD_CAPACITY, CAPACITY)) == ""


def test_what_a_pass_counts_at_rest_keeps_every_round_the_host_took():
    rows = _host_took(passes(perpass.HELD, MEMORY), {("jetty-platform", 2)})

    assert row(verdict.table(rows), "many idle sockets")["by how much"] == "1.25x [1.25, 1.25] over virtual threads, in 3 rounds"


def test_a_figure_the_host_took_in_every_round_names_no_winner_and_says_why():
    rows = passes(perpass.DASHBOARD_CAPACITY, CAPACITY).assign(host="the host took the pass")

    assert row(verdict.table(rows), WAITING)["the model to pick"] == f"no winner can be named: {verdict_words.HOST_TOOK_EVERY_ROUND}"


def test_a_shape_the_run_did_not_measure_names_the_command_that_does():
    waiting = row(verdict.table(passes(perpass.PSS, MEMORY)), "requests waiting on a slow downstream")

    assert waiting["the model to pick"] == "no winner can be named: not measured in this run (make bench measures it)"


def test_an_arm_is_left_out_of_the_verdict():
    rows = passes(perpass.PSS, MEMORY)
    arm = rows[rows["server"] == "jetty-virtual"].assign(server="jetty-virtual-without-fill-lock", value=1.0)

    assert row(verdict.table(pd.concat([rows, arm])), "many idle sockets")["the model to pick"] == "coroutines"


def test_the_models_are_ranked_by_their_figures_within_rounds_not_by_their_medians_across_them():
    # Coroutines' median (12) is below virtual threads' (13), but virtual threads did better in two rounds of three.
    rows = passes(
        perpass.PSS,
        {"jetty-coroutine": 1.0, "jetty-virtual": 1.0, "jetty-platform": 60.0},
        drift={1: 1.0, 2: 1.0, 3: 1.0},
        flips={
            ("jetty-coroutine", 1): 12.0,
            ("jetty-coroutine", 2): 11.0,
            ("jetty-coroutine", 3): 30.0,
            ("jetty-virtual", 1): 10.0,
            ("jetty-virtual", 2): 10.0,
            ("jetty-virtual", 3): 40.0,
        },
    )

    sockets = row(verdict.table(rows), "many idle sockets")

    assert sockets["its figure"].startswith("virtual threads:")
    assert sockets["by how much"].endswith("; virtual threads 1.10x [0.75, 1.20] over coroutines")


def test_a_factor_that_two_decimals_would_round_onto_1_shows_its_side():
    assert (
        verdict_words.x(1.003) == "1.003"
        and verdict_words.x(0.998) == "0.998"
        and verdict_words.x(1.0) == "1.00"
        and verdict_words.x(1.234) == "1.23"
    )


def test_where_three_models_led_the_fourth_clearly_and_none_led_another_all_three_are_named():
    # Coroutines on virtual threads hold what coroutines hold, virtual threads a little more: any of the three, not platform threads.
    on_virtual = {**SERVERS, "jetty-coroutine-virtual": ("jetty", "coroutine-virtual")}
    memory = {**MEMORY, "jetty-virtual": 15.0, "jetty-coroutine-virtual": 14.2}
    table = verdict.table(passes(perpass.HELD, memory, servers=on_virtual))

    sockets = row(table, "many idle sockets")
    assert (
        sockets["the model to pick"]
        == "coroutines, coroutines on virtual threads or virtual threads: none of them led all the others by 15% in every round"
    )
    assert sockets["by how much"].startswith("virtual threads 4.00x [4.00, 4.00] over platform threads, in 3 rounds; coroutines 1.01x")
