"""The latency-throughput curve's figures (labanalysis.curve.curve), each held to a truth known by construction, and a real short curve."""

import gzip
import math

import pandas as pd
import pytest

from labanalysis.bench import k6gc, latency
from labanalysis.curve import curve, curve_sent, curve_step, curve_tables, curve_verdicts
from labanalysis.folder import repeats, run
from labanalysis.folder.outcome import PassOutcome

FIXTURE = ("curve-run", "20261127-002232-smoke")


def ended(**facts) -> PassOutcome:
    """A pass that ran to its end, with the facts the harness recorded of it."""
    return PassOutcome(server="jetty-virtual", status="ok", seconds=600.0, **facts)


def _step(offered: int, **values) -> dict:
    """A per-step row of one pass of vthread on /json: everything sent and answered, p99 1 ms on the wire, under a 20 ms bound."""
    row = dict.fromkeys(repeats.PASS_COLUMNS, "")
    row.update({"run folder": "r", "pass": "vthread", "server": "vthread", "label": "Jetty 12, virtual threads"})
    row.update(
        {
            "endpoint": "json",
            "offered_per_s": offered,
            "achieved_per_s": float(offered),
            "dropped": 0.0,
            "failed": 0.0,
            "load_p50_ms": 1.0,
            "load_p99_ms": 5.0,
            "wire_p50_ms": 0.3,
            "wire_p99_ms": 1.0,
            "server_cores": 0.1 + offered * 40e-6,
            "server_busy": 0.1 + offered * 40e-6,
            "load_busy": 0.3,
            "bound_ms": 20.0,
            "judged_on": "wire",
        }
    )
    row.update(values)
    row.update(curve_verdicts.judged(row))
    return row


def test_a_step_is_sustained_only_with_nothing_dropped_or_failed_and_the_p99_under_the_bound():
    assert _step(1000)["sustained"]
    assert not _step(1000, dropped=3.0)["sustained"]
    assert not _step(1000, failed=1.0)["sustained"]
    at_bound = _step(1000, wire_p99_ms=20.0)
    assert not at_bound["sustained"] and "over 20 ms" in at_bound["why_not"]
    # Without a wire capture, k6's own p99 is judged, and the row says so.
    assert not _step(1000, judged_on="k6", load_p99_ms=25.0)["sustained"]


def test_which_side_ran_out_is_the_cpu_set_busy_on_average_at_the_steps_rate():
    assert _step(1000, server_busy=0.95)["ran_out"] == "server"
    assert _step(1000, load_busy=0.97)["ran_out"] == "load generator"
    assert _step(1000, server_busy=0.95, load_busy=0.97)["ran_out"] == "both"
    assert _step(1000, server_busy=math.nan)["ran_out"] == "neither"


def test_the_highest_sustained_rate_is_the_highest_step_held_and_a_failed_step_below_it_is_named_beside_it():
    steps = pd.DataFrame(
        [_step(500), _step(1000, wire_p99_ms=61.8), _step(2000), _step(3000, dropped=40.0, server_busy=0.99), _step(4000, dropped=900.0)]
    )

    row = curve_verdicts.highest_sustained(steps).iloc[0]

    assert row["highest_sustained_per_s"] == 2000
    assert row["first_not_sustained_per_s"] == 3000
    assert row["why_not"] == "40 dropped" and row["ran_out"] == "server" and row["lower_bound_because"] == ""
    assert row["failed_below"] == "1,000/s: p99 61.8 ms on the wire, over 20 ms"
    assert curve_tables.summary(steps).iloc[0]["steps below it that failed (median pass)"] == row["failed_below"]


def test_a_failed_step_the_server_held_every_step_above_of_sets_no_limit():
    steps = pd.DataFrame([_step(500), _step(1000), _step(2000, dropped=40.0, server_busy=0.99), _step(3000)])

    row = curve_verdicts.highest_sustained(steps).iloc[0]

    assert row["highest_sustained_per_s"] == 3000 and math.isnan(row["first_not_sustained_per_s"])
    assert row["lower_bound_because"] == "the curve's top, 3,000/s, held"
    assert row["failed_below"] == "2,000/s: 40 dropped"


def test_a_server_that_held_every_step_is_not_given_a_limit_and_one_that_held_none_has_0():
    held = curve_verdicts.highest_sustained(pd.DataFrame([_step(500), _step(1000)])).iloc[0]
    assert held["highest_sustained_per_s"] == 1000 and math.isnan(held["first_not_sustained_per_s"])
    assert "the curve's top" in curve_tables.summary(pd.DataFrame([_step(500), _step(1000)])).iloc[0]["highest sustained (req/s)"]
    none = curve_verdicts.highest_sustained(pd.DataFrame([_step(500, wire_p99_ms=90.0), _step(1000, wire_p99_ms=95.0)])).iloc[0]
    assert none["highest_sustained_per_s"] == 0 and none["first_not_sustained_per_s"] == 500


def test_cpu_per_request_is_the_slope_over_the_sustained_steps_leaving_the_fixed_background_out():
    # 10% of a CPU of background plus 40 µs a request: at 500/s a step's own average says 240 µs, the slope 40. The step that
    # failed (its CPU full of a queue) is left out of the fit.
    steps = pd.DataFrame([_step(500), _step(1000), _step(2000), _step(4000, dropped=10.0, server_cores=1.0)])

    assert curve_verdicts.cpu_slopes(steps).iloc[0]["cpu_us_per_request"] == pytest.approx(40)
    assert math.isnan(curve_verdicts.cpu_slopes(pd.DataFrame([_step(500)])).iloc[0]["cpu_us_per_request"])


def test_capacity_per_cpu_is_where_the_line_of_cpu_against_rate_meets_the_budget_per_core_of_it():
    # 0.1 of a core serving nothing, 40 µs a request, on 0.4 of a CPU: the line meets the budget at 0.3 / 40 µs = 7,500/s.
    steps = pd.DataFrame([_step(r, server_cpu_cores=0.4) for r in (500, 1000, 2000, 4000)])

    fit = curve_verdicts.cpu_slopes(steps).iloc[0]

    assert (fit["fixed_cores"], fit["capacity_per_cpu"]) == pytest.approx((0.1, 7_500 / 0.4))


def test_what_a_core_served_with_the_cpu_full_is_read_off_the_full_step_that_served_the_most():
    # On 0.4 of a CPU: 7,500/s fills it by the line; offered 9,000 the server answered 8,000 on 0.39 cores, its requests cheaper
    # when it is busiest. A step in which k6 stalled collecting its heap is not judged, and a step with room is not a full one.
    steps = [_step(r, server_cpu_cores=0.4, server_busy=(0.1 + r * 40e-6) / 0.4) for r in (500, 1000, 2000)]
    full = _step(9000, achieved_per_s=8000.0, server_cores=0.39, server_busy=0.975, wire_p99_ms=80.0)
    lost = _step(12000, achieved_per_s=9000.0, server_cores=0.39, server_busy=0.975, wire_p99_ms=90.0, k6_gc_ms=40.0)

    found = curve_verdicts.cpu_slopes(pd.DataFrame([*steps, full, lost])).iloc[0]

    assert not lost["judged"]
    assert found["served_per_cpu"] == pytest.approx(8000 / 0.39)
    assert not found["served_full_is_floor"]
    assert math.isnan(curve_verdicts.cpu_slopes(pd.DataFrame(steps)).iloc[0]["served_per_cpu"])


def test_a_ladder_whose_only_full_step_collapsed_is_read_off_the_step_in_which_a_core_served_the_most():
    # make bench, 20261203-150753-local, jetty-coroutine-r2 on /dashboard: 1,000/s answered on 0.358 of 0.4 cores (89.5%, not
    # full), then at 2,000/s its CPU full (90.6%) and every request failed. The server had not nothing to give a core.
    steps = [_step(r, endpoint="dashboard", server_cores=0.05 + r * 3e-4, server_busy=(0.05 + r * 3e-4) / 0.4) for r in (100, 400)]
    below = _step(1000, endpoint="dashboard", server_cores=0.358, server_busy=0.895, wire_p99_ms=111.6, bound_ms=100.0)
    collapse = _step(2000, endpoint="dashboard", achieved_per_s=0.0, failed=4342.0, server_cores=0.3625, server_busy=0.906, bound_ms=100.0)

    found = curve_verdicts.cpu_slopes(pd.DataFrame([*steps, below, collapse])).iloc[0]

    assert collapse["judged"] and below["judged"]
    assert found["served_per_cpu"] == pytest.approx(1000 / 0.358)
    assert not found["served_full_is_floor"], "a judged step offered more"
    # Without a step that filled the CPU, the ladder did not reach the server's limit, and says nothing of a full core.
    assert math.isnan(curve_verdicts.cpu_slopes(pd.DataFrame([*steps, below])).iloc[0]["served_per_cpu"])


def test_a_full_step_that_answered_all_it_was_offered_gives_a_floor_under_the_capacity():
    # Offered 5,000 on a full 0.4 of a CPU, the server answered all of it: it kept up, and could have served more.
    steps = [_step(r, server_cpu_cores=0.4) for r in (500, 1000)] + [_step(5000, server_cores=0.39, server_busy=0.975)]

    found = curve_verdicts.cpu_slopes(pd.DataFrame(steps)).iloc[0]

    assert found["served_per_cpu"] == pytest.approx(5000 / 0.39)
    assert found["served_full_is_floor"]
    # Offered 8,000 after it, it answered 4,000: 5,000 is the most it served, no floor.
    beyond = _step(8000, achieved_per_s=4000.0, server_cores=0.4, server_busy=1.0, wire_p99_ms=900.0)
    assert not curve_verdicts.cpu_slopes(pd.DataFrame([*steps, beyond])).iloc[0]["served_full_is_floor"]


def test_a_full_step_whose_load_cpu_ran_out_with_the_servers_gives_only_a_floor():
    # At the ladder's top the server's 0.4 of a CPU was full, and so was the load's CPU: vegeta could send no more than it did,
    # so what a core served there may be short of what it could serve.
    steps = [_step(r, server_cpu_cores=0.4) for r in (500, 1000)]
    top = _step(9000, achieved_per_s=6500.0, server_cores=0.39, server_busy=0.975, wire_p99_ms=80.0, load_busy=0.97)

    found = curve_verdicts.cpu_slopes(pd.DataFrame([*steps, top])).iloc[0]

    assert top["ran_out"] == "both"
    assert found["served_per_cpu"] == pytest.approx(6500 / 0.39)
    assert found["served_full_is_floor"]
    assert not curve_verdicts.cpu_slopes(pd.DataFrame([*steps, {**top, "ran_out": "server"}])).iloc[0]["served_full_is_floor"]


def test_the_full_steps_closed_loop_is_never_sustained_and_is_read_for_what_a_core_serves_full_not_as_a_floor():
    # The ladder's top served 6,500 a second on 0.39 cores with the load's CPU full; wrk's closed loop then got 15,000 a second
    # out of the same budget, the load's CPU half busy. It offered no rate: it has no place in the ladder or its highest held.
    steps = [_step(r, server_cpu_cores=0.4) for r in (500, 1000)]
    top = _step(9000, achieved_per_s=6500.0, server_cores=0.39, server_busy=0.975, wire_p99_ms=80.0, load_busy=0.97)
    full = _step(0, offered_per_s=math.nan, closed_loop=True, achieved_per_s=15000.0, server_cores=0.39, server_busy=0.975, load_busy=0.5)
    frame = pd.DataFrame([*steps, top, full])

    found = curve_verdicts.cpu_slopes(frame).iloc[0]

    assert (full["sustained"], full["judged"], full["why_not"], full["ran_out"]) == (False, True, curve_verdicts.CLOSED_LOOP, "server")
    assert found["served_per_cpu"] == pytest.approx(15000 / 0.39)
    assert not found["served_full_is_floor"]
    assert curve_verdicts.highest_sustained(frame).iloc[0]["highest_sustained_per_s"] == 1000
    assert sorted(curve.across_passes(frame, "achieved (req/s)")["offered_per_s"]) == [500, 1000, 9000]
    # Its load ran out too, and it says only that a core serves at least that much.
    assert curve_verdicts.cpu_slopes(pd.DataFrame([*steps, {**full, "ran_out": "both"}])).iloc[0]["served_full_is_floor"]


def test_the_full_step_table_sets_the_closed_loop_beside_the_ladders_fullest_step_and_says_whose_cpu_ran_out():
    steps = [_step(r, server_cpu_cores=0.4) for r in (500, 1000)]
    top = _step(9000, achieved_per_s=6500.0, server_cores=0.39, server_busy=0.975, wire_p99_ms=80.0, load_busy=0.97)
    full = _step(
        0, offered_per_s=math.nan, closed_loop=True, achieved_per_s=15600.0, server_cores=0.39, server_busy=0.975, load_busy=0.5, wrk_cores=0.1
    )

    row = curve_tables.full_step(pd.DataFrame([*steps, top, full])).iloc[0]

    assert row["full step: served a core (req/s)"] == "40,000 (one pass)"
    assert row["the ladder's most a core (req/s)"] == "16,667 (one pass)"
    assert (row["load CPU busy, full step (%)"], row["load CPU busy, that ladder step (%)"]) == ("50 (one pass)", "97 (one pass)")
    assert row["CPU full in the full step (passes)"] == "server 1"
    assert curve_tables.full_step(pd.DataFrame([*steps, top])).empty, "no full step, no table"


def test_the_full_step_is_read_from_what_wrk_counted_over_its_measured_seconds(tmp_path, bench_manifest):
    timeline = [
        {"name": "json-to-7000", "fromSeconds": 0, "toSeconds": 2, "endpoint": "json", "ratePerSecond": 7000, "generator": "vegeta"},
        {"name": "json-at-7000", "fromSeconds": 2, "toSeconds": 6, "endpoint": "json", "ratePerSecond": 7000, "generator": "vegeta"},
        {"name": "json-to-full", "fromSeconds": 6, "toSeconds": 8, "endpoint": "json", "generator": "wrk"},
        {"name": "json-full", "fromSeconds": 8, "toSeconds": 12, "endpoint": "json", "generator": "wrk"},
    ]
    (tmp_path / "closed-loop.csv").write_text(
        "phase,endpoint,connections,counted_s,answered,not_ok,timeouts,socket_errors,wrk_p50_ms,wrk_p99_ms\n"
        "json-full,json,256,4.02,60300,3,1,0,16.5,41.25\n"
    )
    ran = run.Run(folder=tmp_path, manifest=bench_manifest(timeline=timeline))
    server = run.ServerRun(folder=tmp_path, outcome=ended())

    full = curve.steps(ran, server)[-1]
    figures = curve_sent.wrk_figures(server, full)

    assert (full.phase, full.closed_loop, full.generator, full.settle_from_s, full.seconds) == ("json-full", True, "wrk", 6, 4)
    assert figures["answered"] / full.seconds == pytest.approx(60300 / 4.02)
    assert (figures["failed"], figures["dropped"], figures["p50_ms"], figures["p99_ms"]) == (4.0, 0.0, 16.5, 41.25)


def test_the_spread_table_gives_each_capacity_figures_highest_pass_over_its_lowest():
    # The second pass's requests cost 50 µs, not 40: CPU per request and the line's capacity move by a quarter. Offered 9,000 with
    # its CPU full, it answered 6,400 against the first pass's 8,000: the capacity per CPU moves by a quarter too. The ladder's
    # highest step held (every step below 9,000) does not move at all.
    def full(achieved: float, **values) -> dict:
        return _step(9000, achieved_per_s=achieved, server_cores=0.4, server_busy=1.0, wire_p99_ms=80.0, **values)

    one = [_step(r, server_cpu_cores=0.4) for r in (500, 1000, 2000)] + [full(8000.0)]
    second = {"pass": "vthread-r2"}
    two = [_step(r, server_cpu_cores=0.4, server_cores=0.1 + r * 50e-6, **second) for r in (500, 1000, 2000)] + [full(6400.0, **second)]

    row = curve_tables.spread(pd.DataFrame(one + two)).iloc[0]

    assert row["CPU per request: highest pass over lowest"] == "1.25x"
    assert row["the line's capacity per CPU: highest pass over lowest"] == "1.25x"
    assert row["capacity per CPU: highest pass over lowest"] == "1.25x"
    assert row["highest sustained: highest pass over lowest"] == "1.00x"


def test_the_jvm_threads_share_is_of_the_servers_cpu_over_the_ladder_pass_by_pass_and_absent_columns_are_left_out():
    # Pass one: the collector 0.02 of a core in each of two steps whose server used 0.1 and 0.3 (10% of 0.4); pass two 0.06 of
    # 0.4 (15%). The VM thread: 0.01 in one step of each pass (2.5%). No step measured the JIT compilers.
    one = [
        _step(500, server_cores=0.1, server_gc_cores=0.02, server_vm_cores=0.0),
        _step(1000, server_cores=0.3, server_gc_cores=0.02, server_vm_cores=0.01),
    ]
    second = {"pass": "vthread-r2"}
    two = [
        _step(500, server_cores=0.1, server_gc_cores=0.03, server_vm_cores=0.01, **second),
        _step(1000, server_cores=0.3, server_gc_cores=0.03, server_vm_cores=0.0, **second),
    ]
    frame = pd.DataFrame(one + two).assign(server_jit_cores=math.nan)

    row = curve_tables.jvm_shares(frame).iloc[0]

    assert row["collector (% of the server's CPU)"] == "12.50 [10, 15] over 2 passes"
    assert row["VM thread (% of the server's CPU)"] == "2.50 [2.50, 2.50] over 2 passes"
    assert "JIT compilers (% of the server's CPU)" not in row.index
    assert curve_tables.jvm_shares(frame.drop(columns=["server_gc_cores", "server_vm_cores"])).empty


def test_a_steps_whole_seconds_leave_out_the_seconds_it_shares_with_the_phases_either_side():
    server = run.ServerRun(folder=None, outcome=ended(load_start_epoch_ms=1_000_500))
    step = curve_step.Step("json-at-500", "json", 500, from_s=10, to_s=18)

    assert curve_sent.whole_seconds(server, step) == (1011, 1018)


def test_a_search_slot_is_the_step_its_pass_chose_a_rate_for_and_counts_for_that_pass_alone(tmp_path, bench_manifest):
    # The ladder 7,000 and 8,000/s, then two search slots; this pass offered the first at 7,500/s and nothing in the second (its
    # search recorded a rate of 0).
    timeline = [
        {"name": "json-to-7000", "fromSeconds": 0, "toSeconds": 2, "endpoint": "json", "ratePerSecond": 7000, "generator": "vegeta"},
        {"name": "json-at-7000", "fromSeconds": 2, "toSeconds": 8, "endpoint": "json", "ratePerSecond": 7000, "generator": "vegeta"},
        {"name": "json-to-8000", "fromSeconds": 8, "toSeconds": 10, "endpoint": "json", "ratePerSecond": 8000, "generator": "vegeta"},
        {"name": "json-at-8000", "fromSeconds": 10, "toSeconds": 16, "endpoint": "json", "ratePerSecond": 8000, "generator": "vegeta"},
        {"name": "json-to-search-1", "fromSeconds": 16, "toSeconds": 26, "endpoint": "json", "generator": "vegeta", "searched": True},
        {"name": "json-search-1", "fromSeconds": 26, "toSeconds": 32, "endpoint": "json", "generator": "vegeta", "searched": True},
        {"name": "json-to-search-2", "fromSeconds": 32, "toSeconds": 34, "endpoint": "json", "generator": "vegeta", "searched": True},
        {"name": "json-search-2", "fromSeconds": 34, "toSeconds": 40, "endpoint": "json", "generator": "vegeta", "searched": True},
    ]
    (tmp_path / "curve-search.csv").write_text(
        "time_s,phase,endpoint,planned,rate_per_s,held_per_s,failed_per_s\n"
        "40.1,json-to-search-1,json,json-search-1,7500,7000,8000\n"
        "56.1,json-to-search-2,json,json-search-2,0,,\n"
    )
    ran = run.Run(folder=tmp_path, manifest=bench_manifest(timeline=timeline))
    searching = run.ServerRun(folder=tmp_path, outcome=ended())

    assert [(s.phase, s.rate_per_s, s.searched) for s in curve.steps(ran, searching)] == [
        ("json-at-7000", 7000, False),
        ("json-at-8000", 8000, False),
        ("json-at-7500", 7500, True),
    ]
    searched = curve.steps(ran, searching)[-1]
    assert (searched.settle_from_s, searched.from_s, searched.to_s) == (16, 26, 32)
    assert [s.phase for s in curve.steps(ran)] == ["json-at-7000", "json-at-8000"], "without the pass, no searched step"

    # Its verdict counts in the pass's highest sustained rate; the curve across passes is the ladder's rates alone.
    steps = pd.DataFrame([_step(7000, searched=False), _step(8000, searched=False, wire_p99_ms=30.0), _step(7500, searched=True)])
    assert curve_verdicts.highest_sustained(steps).iloc[0]["highest_sustained_per_s"] == 7500
    assert sorted(curve.across_passes(steps, "achieved (req/s)")["offered_per_s"]) == [7000, 8000]


def test_a_ladder_step_the_search_did_not_offer_is_no_step_of_that_pass(tmp_path, bench_manifest):
    # Past the server's limit the ladder stops and the server rests (CurveSearch.offers): the pass's search recorded 4,000/s as
    # offered at 0, so its rows (none) are not read as 4,000 dropped requests.
    timeline = [
        {"name": f"json-{kind}-{rate}", "fromSeconds": at, "toSeconds": at + 2, "endpoint": "json", "ratePerSecond": rate, "generator": "vegeta"}
        for at, (kind, rate) in enumerate([("to", 2000), ("at", 2000), ("to", 4000), ("at", 4000)])
    ]
    (tmp_path / "curve-search.csv").write_text(
        "time_s,phase,endpoint,planned,rate_per_s,held_per_s,failed_per_s\n30.0,json-to-4000,json,json-at-4000,0,1000,1500\n"
    )
    ran = run.Run(folder=tmp_path, manifest=bench_manifest(timeline=timeline))

    assert [s.phase for s in curve.steps(ran, run.ServerRun(folder=tmp_path, outcome=ended()))] == ["json-at-2000"]


def test_a_real_short_curve_reads_each_step_from_the_timeline_and_counts_each_request_once(fixture_copy):
    """The fixture is a real smoke run's vthread pass (make bench PROFILE=smoke ONLY=vthread), cut to its curve: /json at 100/s and
    200/s, /dashboard at 20/s, 2 s measured each, nothing dropped."""
    ran = run.load_run(fixture_copy(*FIXTURE))

    assert [s.phase for s in curve.steps(ran)] == ["json-at-100", "json-at-200", "dashboard-at-20"]
    steps = curve.per_step([ran])
    assert list(steps["offered_per_s"]) == [100, 200, 20]
    assert (steps["dropped"] == 0).all() and steps["sustained"].all()
    # k6 sent each step's rate, and the wire saw the server answer the same requests, by the harness's own clock.
    assert steps["achieved_per_s"].tolist() == pytest.approx(steps["offered_per_s"].tolist(), rel=0.02)
    assert steps["wire_answered_per_s"].tolist() == pytest.approx(steps["achieved_per_s"].tolist(), rel=0.02)
    assert (steps["server_cores"] > 0).all()


@pytest.mark.parametrize(("second", "step"), [("server_jit", "server_jit_cores"), ("server_gc", "server_gc_cores"), ("server_vm", "server_vm_cores")])
def test_a_steps_jvm_threads_are_the_mean_of_their_seconds_and_unknown_in_a_run_from_before_the_column(fixture_copy, second, step):
    # The compilers, the collector and the VM thread: each cpu.csv column's mean over the step's seconds.
    folder = fixture_copy(*FIXTURE)
    assert curve.per_step([run.load_run(folder)])[step].isna().all()

    seconds = pd.read_csv(folder / "vthread" / "cpu.csv")
    in_step = seconds["phase"] == "json-at-200"
    seconds[second] = 0.0
    seconds.loc[in_step, second] = [0.05 + 0.1 * i for i in range(in_step.sum())]
    seconds.to_csv(folder / "vthread" / "cpu.csv", index=False)

    steps = curve.per_step([run.load_run(folder)]).set_index("offered_per_s")
    assert steps.loc[200, step] == pytest.approx(0.05 + 0.1 * (in_step.sum() - 1) / 2)
    assert steps.loc[100, step] == 0.0


def test_what_the_host_took_of_the_load_cpu_over_a_pass_is_set_beside_the_hypervisors_steal(fixture_copy):
    # One load CPU: in every second, 0.1 core more busy than the lab's processes, all of it stolen in the even seconds.
    folder = fixture_copy(*FIXTURE)
    seconds = pd.read_csv(folder / "vthread" / "cpu.csv")
    lab = seconds[["k6", "stub", "harness"]].fillna(0.0).sum(axis=1)
    seconds["load_cpus_busy"] = lab + 0.1
    seconds["steal"] = [0.05 if i % 2 == 0 else 0.0 for i in range(len(seconds))]  # of the host's two CPUs: taken as 0.05 core of each
    seconds.to_csv(folder / "vthread" / "cpu.csv", index=False)

    before = curve.host_on_load_per_pass([run.load_run(folder)]).iloc[0]
    assert before["unexplained_cores"] == pytest.approx(0.1, abs=1e-3)
    assert before["stolen_cores"] == pytest.approx(0.05 * math.ceil(len(seconds) / 2) / len(seconds), abs=1e-3)
    assert not before["steal_measured_on_load_cpus"]

    # Where cpu.csv measured the load CPU's own steal, others_on_load leaves it out, and the table adds it back beside it.
    seconds["load_cpus_steal"] = seconds["steal"] * 2
    seconds.to_csv(folder / "vthread" / "cpu.csv", index=False)
    after = curve.host_on_load_per_pass([run.load_run(folder)]).iloc[0]
    assert after["steal_measured_on_load_cpus"]
    assert after["unexplained_cores"] == pytest.approx(0.1, abs=1e-3)
    assert after["stolen_cores"] == pytest.approx(0.1 * math.ceil(len(seconds) / 2) / len(seconds), abs=1e-3)
    assert curve.others_on_load(seconds.iloc[[0]], load_cpus=1) == pytest.approx(0.0, abs=1e-3)
    assert curve.others_on_load(seconds.iloc[[1]], load_cpus=1) == pytest.approx(0.1, abs=1e-3)


def test_a_steps_major_gc_seconds_are_the_major_cycles_overlapping_its_seconds_and_unknown_in_a_run_from_before_them(fixture_copy):
    folder = fixture_copy(*FIXTURE)
    assert curve.per_step([run.load_run(folder)])["server_gc_major_s"].isna().all()

    # The fixture's json-at-200 has cpu.csv's seconds up to 35.981 and 36.98: it ran from 34.981. A major cycle from 35.48 on runs
    # 1.5 s of it; a minor cycle inside it is not counted, and json-at-100, which ended at 32.981, had none.
    series = folder / "vthread" / "jfr-series.csv"
    series.write_text(series.read_text() + "35.48,json-at-200,gc_major_cycle_s,10.0\n36.0,json-at-200,gc_minor_cycle_s,0.5\n")

    steps = curve.per_step([run.load_run(folder)]).set_index("offered_per_s")
    assert steps.loc[200, "server_gc_major_s"] == pytest.approx(1.5)
    assert steps.loc[100, "server_gc_major_s"] == 0.0


def test_a_failed_step_says_a_major_gc_cycle_ran_in_it_and_counts_all_the_same():
    failed = _step(2000, wire_p99_ms=45.0, server_gc_major_s=4.2)
    assert failed["why_not"] == "p99 45.0 ms on the wire, over 20 ms; a major GC cycle ran 4.2 s of the step"
    assert failed["judged"] and not failed["sustained"]
    held = _step(2000, server_gc_major_s=4.2)
    assert held["sustained"] and held["why_not"] == ""


def test_k6s_collections_are_put_on_the_loads_timeline_and_a_step_they_fall_in_says_so(tmp_path):
    # k6 started 2 s before its timeline; its collection began 82.157 s after k6 started, so 80.157 s into the load, for 3 s.
    (tmp_path / "k6.log").write_text(
        'time="..." level=info msg="..."\n'
        "gc 1 @82.157s 2%: 0.15+3009+0.026 ms clock, 0.15+1483/761/0+0.026 ms cpu, 5263->5315->1264 MB, 5255 MB goal, 1 P\n"
    )
    server = run.ServerRun(folder=tmp_path, outcome=ended(k6_start_epoch_ms=1_000_000, load_start_epoch_ms=1_002_000))

    found = k6gc.collections(server)

    assert found.iloc[0]["load_s"] == pytest.approx(80.157) and found.iloc[0]["wall_ms"] == pytest.approx(3009.176)
    assert found.iloc[0]["live_mb"] == 1264
    assert k6gc.wall_ms_within(server, 75, 83) == pytest.approx(2843, abs=1)
    assert k6gc.wall_ms_within(server, 85, 93) == 0
    stalled = _step(2000, dropped=6332.0, k6_gc_ms=3009.2)
    assert "not judged: k6 collected its heap for 3,009 ms" in stalled["why_not"] and not stalled["judged"]
    # A step k6 collected in that the server sustained all the same is evidence still.
    assert _step(2000, k6_gc_ms=900.0)["sustained"] and _step(2000, k6_gc_ms=900.0)["judged"]


def test_a_step_k6_stalled_in_is_passed_over_neither_held_nor_failed():
    steps = pd.DataFrame([_step(500), _step(1000, dropped=900.0, k6_gc_ms=2500.0), _step(2000), _step(3000, wire_p99_ms=80.0)])

    row = curve_verdicts.highest_sustained(steps).iloc[0]

    assert row["highest_sustained_per_s"] == 2000 and row["first_not_sustained_per_s"] == 3000


def test_a_step_only_the_load_generator_failed_is_not_judged_and_the_rate_below_it_is_a_lower_bound():
    # k6's CPU full, the server's at a third, every request sent answered in 1 ms on the wire: k6 did not offer the step's rate.
    short = _step(4000, dropped=700.0, achieved_per_s=3300.0, load_busy=0.98, server_busy=0.35)
    assert not short["sustained"] and not short["judged"]
    assert "not judged: the load generator's CPU ran out, not the server's (98% busy, the server 35%)" in short["why_not"]
    # With the load's CPU full, a late answer on the wire may be the load's delay in delivering the request: not judged either.
    assert not _step(4000, dropped=700.0, load_busy=0.98, wire_p99_ms=30.0)["judged"]
    # The server's own failings are judged, however busy the load: a failed request, a full server.
    assert _step(4000, failed=5.0, load_busy=0.98)["judged"]
    assert _step(4000, dropped=700.0, load_busy=0.98, server_busy=0.95)["judged"]
    # Without the wire, k6's latency cannot tell its own delay from the server's.
    assert _step(4000, dropped=700.0, load_busy=0.98, judged_on="k6")["judged"]
    # A step the wire, capturing, saw nothing of: nothing reached the server.
    nothing = _step(10000, dropped=60000.0, load_busy=1.0, server_busy=0.07, judged_on="vegeta", wire_answered_per_s=0.0, wire_p99_ms=math.nan)
    assert not nothing["judged"] and "the load generator's CPU ran out" in nothing["why_not"]

    steps = pd.DataFrame([_step(1000), _step(2000), short])
    row = curve_verdicts.highest_sustained(steps).iloc[0]

    assert row["highest_sustained_per_s"] == 2000 and math.isnan(row["first_not_sustained_per_s"])
    assert row["lower_bound_because"].startswith("from 4,000/s on, the load generator's CPU ran out")
    assert curve_tables.summary(steps).iloc[0]["highest sustained (req/s)"].startswith("≥ 2,000")
    # A limit the server reached is not a lower bound.
    assert curve_verdicts.highest_sustained(pd.DataFrame([_step(1000), _step(2000, wire_p99_ms=50.0)])).iloc[0]["lower_bound_because"] == ""


def _vegeta_attack(folder, rate: int, seconds: int, late_from_seq: int | None = None, stop_at_seq: int | None = None, failed_seqs=()):
    """vegeta.csv.gz for one attack, `json-at-<rate>`, begun at 100 s on the pass's clock: 2 s to settle, then the step, each request
    sent when due, except from `late_from_seq` on (1.5 s late) and none from `stop_at_seq` on."""
    lines = ["time_s,phase,attack,seq,endpoint,status,ms,checks_passed,error"]
    for seq in range((2 + seconds) * rate):
        if stop_at_seq is not None and seq >= stop_at_seq:
            break
        at = 100 + seq / rate + (1.5 if late_from_seq is not None and seq >= late_from_seq else 0)
        phase = f"json-to-{rate}" if at < 102 else f"json-at-{rate}"
        passed = 0 if seq in failed_seqs else 1
        lines.append(f"{at:.4f},{phase},json-at-{rate},{seq},json,{200 if passed else 500},1.5,{passed},")
    (folder / "vegeta.csv.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return run.ServerRun(folder=folder, outcome=ended())


def test_a_vegeta_step_counts_what_was_due_in_it_and_drops_what_went_out_over_a_second_late_or_never(tmp_path):
    step = curve_step.Step("json-at-100", "json", 100, from_s=52, to_s=60, generator="vegeta", settle_from_s=50)

    on_time = curve_sent.vegeta_figures(_vegeta_attack(tmp_path, 100, 8), step)
    assert on_time["sent"] == 800 and on_time["dropped"] == 0 and on_time["failed"] == 0

    # From the 500th request of the attack (300 into the step) every one went out 1.5 s late: 500 of the step's 800 dropped.
    late = curve_sent.vegeta_figures(_vegeta_attack(tmp_path, 100, 8, late_from_seq=500), step)
    assert late["dropped"] == 500
    # The attack sent nothing from its 700th on: 500 of the step's requests went out, the last 300 never did.
    stopped = curve_sent.vegeta_figures(_vegeta_attack(tmp_path, 100, 8, stop_at_seq=700), step)
    assert stopped["sent"] == 500 and stopped["dropped"] == 300
    # A failed check counts in the step it was due in only (the 150th is in the settling seconds).
    failing = curve_sent.vegeta_figures(_vegeta_attack(tmp_path, 100, 8, failed_seqs={150, 250, 251}), step)
    assert failing["failed"] == 2


def test_what_a_vegeta_step_served_is_what_went_out_in_its_seconds_where_the_server_fell_behind_the_schedule(tmp_path):
    # Every worker busy from the start: the attack (due 100/s) went out at 50/s, as the server answered, to its end at 110 s.
    step = curve_step.Step("json-at-100", "json", 100, from_s=52, to_s=60, generator="vegeta", settle_from_s=50)
    lines = ["time_s,phase,attack,seq,endpoint,status,ms,checks_passed,error"]
    for seq in range(500):
        at = 100 + seq / 50
        lines.append(f"{at:.4f},{'json-to-100' if at < 102 else 'json-at-100'},json-at-100,{seq},json,200,1.5,1,")
    (tmp_path / "vegeta.csv.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    sent = curve_sent.vegeta_figures(run.ServerRun(folder=tmp_path, outcome=ended()), step)
    # The step's 8 s had 800 due; 300 of them went out, and every one over a second late. In its 8 s the server answered 400.
    assert sent["sent"] == 300 and sent["dropped"] == 800
    assert sent["answered"] / step.seconds == 50


def test_a_vegeta_request_sent_late_is_timed_from_when_it_was_due(tmp_path):
    # Every worker busy: from the 500th request on, each went out 0.4 s late, under the second that drops it, and took 1.5 ms.
    step = curve_step.Step("json-at-100", "json", 100, from_s=52, to_s=60, generator="vegeta", settle_from_s=50)
    lines = ["time_s,phase,attack,seq,endpoint,status,ms,checks_passed,error"]
    for seq in range(1000):
        lines.append(f"{100 + seq / 100 + (0.4 if seq >= 500 else 0):.4f},json-at-100,json-at-100,{seq},json,200,1.5,1,")
    (tmp_path / "vegeta.csv.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    timed = curve_sent.vegeta_figures(run.ServerRun(folder=tmp_path, outcome=ended()), step)
    assert timed["dropped"] == 0
    assert sorted(set(timed["ms"].round(6))) == [1.5, 401.5]
    assert (timed["ms"] > 400).sum() == 500


def test_the_steady_phases_dropped_iterations_stop_where_its_scenario_goes_on_to_the_curve(tmp_path, bench_manifest):
    # The load started at epoch 1,000 s; /json's steady phase is 5-15 s of load, its curve's first step 15-19 s (settling 2 s).
    timeline = [
        {"name": "json", "fromSeconds": 5, "toSeconds": 15, "endpoint": "json", "ratePerSecond": 2000},
        {"name": "json-to-3000", "fromSeconds": 15, "toSeconds": 17, "endpoint": "json", "ratePerSecond": 3000},
        {"name": "json-at-3000", "fromSeconds": 17, "toSeconds": 19, "endpoint": "json", "ratePerSecond": 3000},
    ]
    lines = ["metric_name,timestamp,metric_value,scenario,extra_tags", "dropped_iterations,1010,2,json,", "dropped_iterations,1017,40,json,"]
    with gzip.open(tmp_path / "k6-metrics.csv.gz", "wt") as out:
        out.write("\n".join(lines) + "\n")
    server = run.ServerRun(folder=tmp_path, outcome=ended(load_start_epoch_ms=1_000_000, json_steady_from_epoch_second=1005))
    ran = run.Run(tmp_path, bench_manifest(timeline=timeline), [server])

    assert latency.steady_until(ran, server, "json") == 1015
    assert latency.dropped_iterations(server, "json", latency.steady_until(ran, server, "json")) == 2
    assert curve_sent.dropped(server, curve.steps(ran)[0]) == 40
    # Without a curve after it, the steady phase's count runs to the scenario's end, as it always did.
    assert latency.steady_until(run.Run(tmp_path, bench_manifest(timeline=timeline[:1]), [server]), server, "json") is None


def test_what_else_ran_on_the_load_cpus_is_their_busy_cores_less_the_labs_own_processes():
    # Two load CPUs, 60% busy: 1.2 cores, of which k6 used 0.5, vegeta 0.3, the stub 0.1 and the harness 0.1; 0.2 was another program.
    seconds = pd.DataFrame({"load_cpus_busy": [0.6, 0.6], "k6": [0.5, 0.5], "vegeta": [0.3, 0.3], "stub": [0.1, 0.1], "harness": [0.1, 0.1]})

    assert curve.others_on_load(seconds, load_cpus=2) == pytest.approx(0.2)
    # A second with vegeta idle (an empty cell) counts it as 0, not as a gap.
    assert curve.others_on_load(seconds.assign(vegeta=[math.nan, math.nan]), load_cpus=2) == pytest.approx(0.5)
    assert math.isnan(curve.others_on_load(seconds, load_cpus=0)), "no load CPUs of its own: not known"
    # A run from before cpu.csv's load_cpus_steal cannot tell the hypervisor from another program.
    assert math.isnan(curve.steal_on_load(seconds, load_cpus=2))


def test_time_the_hypervisor_stole_from_the_load_cpus_is_no_other_programs():
    # The same second with 5% of the two CPUs stolen: 0.1 cores of the 0.2 were the hypervisor's.
    seconds = pd.DataFrame({"load_cpus_busy": [0.6], "load_cpus_steal": [0.05], "k6": [0.5], "vegeta": [0.3], "stub": [0.1], "harness": [0.1]})

    assert curve.steal_on_load(seconds, load_cpus=2) == pytest.approx(0.1)
    assert curve.others_on_load(seconds, load_cpus=2) == pytest.approx(0.1)


def test_a_step_in_which_the_server_reached_its_open_files_limit_is_not_judged_and_the_rate_below_is_a_lower_bound():
    # make curve with 15,000 idle sockets: the curve's connections took the server to 19,999 of its 20,000 files at 4,000/s, it
    # stopped accepting, and 55 requests timed out; the limit is the host's and the lab's, not the model's.
    at_limit = {"server_files_max": 19_999.0, "files_limit": 20_000.0}
    steps = pd.DataFrame(
        [_step(2000, server_files_max=17_183.0, files_limit=20_000.0), _step(4000, failed=55.0, **at_limit), _step(6000, **at_limit)]
    )

    assert list(steps["judged"]) == [True, False, False]
    assert "not judged: the server reached its open-files limit (19,999 of 20,000)" in steps.iloc[1]["why_not"]
    highest = curve_verdicts.highest_sustained(steps).iloc[0]
    assert highest["highest_sustained_per_s"] == 2000
    assert highest["lower_bound_because"] == "from 4,000/s on, the server reached its open-files limit (19,999 of 20,000)"


def test_a_step_that_failed_while_another_program_used_the_load_cpus_is_not_judged():
    # make curve, 20261127-102416, vthread-r3: another program used 0.07-0.24 of the load's CPU for 30 s, and the wire's p99 at
    # 1,500/s was 37 ms, where it was 1-8 ms at the steps either side.
    steps = pd.DataFrame([_step(1000, load_others_cores=0.07), _step(1500, wire_p99_ms=37.5, load_others_cores=0.24), _step(2000)])

    assert list(steps["judged"]) == [True, False, True]
    assert "not judged: another program, or the hypervisor, took 0.24 cores of the load's CPUs" in steps.iloc[1]["why_not"]
    assert curve_verdicts.highest_sustained(steps).iloc[0]["highest_sustained_per_s"] == 2000
    # A step that held is sustained whatever else ran: there is nothing to put down to the host.
    assert _step(1000, load_others_cores=0.3)["sustained"]
    # Where cpu.csv says what the hypervisor stole, the two are named apart, and their sum is what the host took.
    stolen = _step(1500, wire_p99_ms=37.5, load_others_cores=0.04, load_steal_cores=0.09)
    assert not stolen["judged"]
    assert "not judged: the host took 0.13 cores of the load's CPUs (the hypervisor 0.09, other programs 0.04)" in stolen["why_not"]
    assert _step(1500, wire_p99_ms=37.5, load_others_cores=0.04, load_steal_cores=0.05)["judged"], "0.09 cores: within noise"


def test_a_step_that_failed_with_the_servers_cpu_full_is_the_servers_whatever_the_host_took_of_the_load_cpus():
    # make bench, 20261203-120533-local, jetty-platform: /dashboard at 400/s, the server 94% busy of its budget, 165 dropped and
    # 193 failed, while the hypervisor took 0.13 cores of the load's CPU: the server had no CPU left to give.
    full = _step(400, server_busy=0.94, dropped=165.0, failed=193.0, wire_p99_ms=13_364.0, load_others_cores=0.13)

    assert full["judged"] and not full["sustained"]
    assert full["ran_out"] == "server"
    assert "not judged" not in full["why_not"]


def test_a_step_that_failed_while_the_budget_held_the_server_back_is_the_servers_whatever_the_host_took_of_the_load_cpus():
    # make bench, 20261203-111629-local, jetty-virtual-r3: /dashboard at 1,000/s, the server at 86% of its budget on average but
    # held back by it 51% of the step's time (its load came in bursts), 289 dropped and 312 failed, while the host took 0.23 cores
    # of the load's CPU: the budget ran out, as it does in a quiet host's steps.
    held_back = {
        "endpoint": "dashboard",
        "bound_ms": 100.0,
        "server_cores": 0.345,
        "server_busy": 0.862,
        "load_others_cores": 0.232,
        "wire_p99_ms": 660.2,
    }
    failed = _step(1000, achieved_per_s=849.75, dropped=289.0, failed=312.0, server_throttled_share=0.506, **held_back)

    assert failed["judged"] and not failed["sustained"]
    assert failed["ran_out"] == "server"
    # Held back less, the same step is put down to the host; and a run from before the column judges on the average alone.
    assert not _step(1000, dropped=289.0, server_throttled_share=0.2, **held_back)["judged"]
    assert not _step(1000, dropped=289.0, server_throttled_share=math.nan, **held_back)["judged"]
    assert not _step(1000, dropped=289.0, **held_back)["judged"]


def test_what_a_core_served_is_read_in_a_ladder_whose_only_sign_of_a_full_cpu_is_the_budget_holding_the_server_back():
    steps = [_step(r, endpoint="dashboard", bound_ms=100.0, server_cores=0.1 + r * 5e-4, server_busy=(0.1 + r * 5e-4) / 0.4) for r in (50, 250)]
    burst = _step(650, endpoint="dashboard", bound_ms=100.0, server_cores=0.341, server_busy=0.854, server_throttled_share=0.442, wire_p99_ms=338.9)
    steps = pd.DataFrame([*steps, burst])

    assert curve_verdicts.served_when_full(steps) == pytest.approx(650 / 0.341)
    assert math.isnan(curve_verdicts.served_when_full(steps.assign(server_throttled_share=0.1)))


def test_the_steps_are_counted_by_the_hosts_take_and_the_budgets_hold_and_whether_they_held():
    steps = pd.DataFrame(
        [
            _step(500, server_throttled_share=0.0, load_others_cores=0.0),
            _step(4000, server_throttled_share=0.55, dropped=10.0, load_others_cores=0.05),
            _step(3000, server_throttled_share=0.45, load_others_cores=0.0),
            _step(2000, server_throttled_share=0.41, wire_p99_ms=40.0, load_others_cores=0.2),
            _step(1000),  # from before cpu.csv measured the hold: left out
        ]
    )

    counts = curve_verdicts.held_back_outcomes(steps).set_index(["host", "held back"])

    assert counts.loc[("quiet", "40% or more"), ["sustained", "failed"]].tolist() == [1, 1]
    assert counts.loc[("quiet", "less"), ["sustained", "failed"]].tolist() == [1, 0]
    assert counts.loc[("took the load's CPUs", "40% or more"), ["sustained", "failed"]].tolist() == [0, 1]
    assert counts["steps"].sum() == 4
