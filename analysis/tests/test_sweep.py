"""The concurrency sweep's figures (labanalysis.sweep.sweep), each held to a truth known by construction, and the report of a real one."""

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

from labanalysis.folder import sweepfolder
from labanalysis.report import experiment_plots, offline, render
from labanalysis.sweep import sweep, sweepmemory


def _step(**values) -> dict:
    """A row of sweep.csv: a server that held 100 in flight on /delay for 10 s, counted from 1 s, answering 100/s, all 200."""
    row = dict.fromkeys(sweepfolder.STEP_COLUMNS, 0)
    row.update(
        {
            "pass": 1,
            "server": "vthread",
            "workload": "delay",
            "delay_ms": 1000,
            "concurrency": 100,
            "duration_us": 10_000_000,
            "requests": 1000,
            "window_from_ms": 1000,
            "answered_in_window": 900,
            "statuses": "200=1000",
            "server_cpu_s": 0.5,
            "server_cpus_busy": 0.05,
            "load_cpus_busy": 0.02,
            "threads_peak": 40,
        }
    )
    row.update(values)
    return row


# The committed sweep's manifest, each request waiting 1,000 ms: the runs the tests below make of rows of their own.
FIXTURE = sweepfolder.load(Path(__file__).resolve().parent / "fixtures" / "sweep").manifest
MANIFEST = dataclasses.replace(FIXTURE, settings=dataclasses.replace(FIXTURE.settings, delay_ms=1000))


def _run(steps: list[dict], memory: list[dict] = (), tmp_path=None) -> sweepfolder.SweepRun:
    return sweepfolder.SweepRun(
        tmp_path,
        MANIFEST,
        pd.DataFrame(steps, columns=sweepfolder.STEP_COLUMNS),
        pd.DataFrame(list(memory), columns=sweepfolder.MEMORY_COLUMNS),
    )


def test_throughput_is_counted_over_the_window_only_and_little_is_its_share_of_c_over_d():
    figures = sweep.per_step(pd.DataFrame([_step(), _step(concurrency=200, answered_in_window=900 * 1.5)]))

    # 900 answers in the 9 s after the first second: 100/s, where 1,000 answers over the whole 10 s would say so too only by luck.
    assert figures["throughput_per_s"].tolist() == [100, 150]
    assert figures["little"].tolist() == [1.0, 0.75]
    assert figures["server_cpu_us_per_request"].iloc[0] == 500


def test_every_answer_not_a_200_and_every_request_lost_counts_as_an_error():
    figures = sweep.per_step(pd.DataFrame([_step(requests=1000, statuses="200=900;502=100", errors_timeout=50)]))

    assert figures["answers_200"].iloc[0] == 900
    assert figures["errors"].iloc[0] == 150
    assert figures["error_percent"].iloc[0] == pytest.approx(100 * 150 / 1050)


def test_downstream_connections_a_call_are_the_stubs_connections_over_its_calls_and_none_without_calls(tmp_path):
    each_call = _step(workload="dashboard", stub_calls=2000, stub_connections=2000)
    kept = _step(workload="dashboard", server="jetty-virtual", stub_calls=2000, stub_connections=0)
    steps = [each_call, kept, _step(stub_calls=0, stub_connections=0), _step(stub_calls=float("nan"), stub_connections=float("nan"))]
    figures = sweep.per_step(pd.DataFrame(steps))

    assert figures["stub_connections_per_call"].tolist()[:2] == [1.0, 0.0]
    assert figures["stub_connections_per_call"].iloc[2:].isna().all()
    run = _run(steps, tmp_path=tmp_path)
    assert sweep.measured(run, "dashboard", sweep.DOWNSTREAM_CONNECTIONS)
    assert not sweep.measured(run, "delay", sweep.DOWNSTREAM_CONNECTIONS)


@pytest.mark.parametrize(
    ("server_busy", "load_busy", "side"),
    [(0.95, 0.3, "server"), (0.3, 0.95, "load"), (0.92, 0.91, "both"), (0.5, 0.5, "neither"), (float("nan"), 0.2, "neither")],
)
def test_the_side_that_saturated_is_the_cpu_set_busy_for_nine_tenths_of_the_window(server_busy, load_busy, side):
    assert sweep.saturated(server_busy, load_busy) == side


def test_capacity_is_the_last_concurrency_every_pass_held_and_says_why_the_next_did_not(tmp_path):
    steps = [_step(**{"pass": p}) for p in (1, 2)] + [
        _step(
            **{
                "pass": 1,
                "concurrency": 1000,
                "answered_in_window": 4500,
                "requests": 5000,
                "statuses": "200=4000;502=1000",
                "server_cpus_busy": 0.99,
            }
        ),
        _step(**{"pass": 2, "concurrency": 1000, "answered_in_window": 9000, "requests": 10000, "statuses": "200=10000"}),
    ]

    row = sweep.capacity(_run(steps, tmp_path=tmp_path)).iloc[0]

    assert row["held up to C"] == 100
    assert row["first C not held"] == 1000
    assert "1 of its passes" in row["why"] and "1,000 of 502" in row["why"] and "server's CPU full" in row["why"]


def test_memory_per_request_in_flight_is_the_step_less_rest_over_the_servers_own_count(tmp_path):
    memory = [
        {
            "pass": 1,
            "server": "vthread",
            "workload": "delay",
            "concurrency": 0,
            "in_flight_before": 0,
            "in_flight_after": 0,
            "component": "live_heap",
            "bytes": 10_000_000,
        },
        {
            "pass": 1,
            "server": "vthread",
            "workload": "delay",
            "concurrency": 100,
            "in_flight_before": 100,
            "in_flight_after": 98,
            "component": "live_heap",
            "bytes": 10_000_000 + 99 * 2048,
        },
        # The warm-up ended while this one was taken: its count fell to 40 of 1,000, so it is no snapshot of 1,000 in flight.
        {
            "pass": 1,
            "server": "vthread",
            "workload": "delay",
            "concurrency": 1000,
            "in_flight_before": 1000,
            "in_flight_after": 40,
            "component": "live_heap",
            "bytes": 11_000_000,
        },
    ]

    per = sweepmemory.per_in_flight(_run([_step()], memory, tmp_path))

    assert per[["concurrency", "measure", "bytes_per_request"]].to_dict("records") == [
        {"concurrency": 100, "measure": "live heap", "bytes_per_request": 2048}
    ]


def test_a_folder_that_is_no_sweep_is_refused_in_one_line(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"provenance": {}}))

    with pytest.raises(sweepfolder.SweepFolderError, match="not a `make sweep` folder"):
        sweepfolder.load(tmp_path)


def test_a_sweep_of_another_run_folder_format_is_refused_in_one_line_naming_its_commit(fixture_copy):
    folder = fixture_copy("sweep", "20261129-080728-sweep")
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "runFolderFormat": 99}))

    with pytest.raises(sweepfolder.SweepFolderError, match=r"is in run-folder format 99, and this analysis reads format 1 .*checkout of") as refused:
        sweepfolder.load(folder)
    assert "\n" not in str(refused.value)


def test_a_sweep_from_before_run_folder_json_is_refused_in_one_line_naming_the_commit_to_render_it_from(fixture_copy):
    # A sweep made before the run-folder format was declared records none in its manifest.
    folder = fixture_copy("sweep", "20261129-080728-sweep")
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({k: v for k, v in manifest.items() if k != "runFolderFormat"}))

    with pytest.raises(sweepfolder.SweepFolderError, match=r"records no run-folder format \(it predates run-folder.json\).*checkout of") as refused:
        sweepfolder.load(folder)
    assert "\n" not in str(refused.value)


def test_a_real_small_sweep_loads_whole_and_holds_littles_law_on_delay(fixture_copy):
    """The fixture is a real run, made small: the platform-thread server at 20 and 200 in flight, each waiting 200 ms, one pass
    (lab.sweep.SweepMainKt --servers jetty-platform --concurrency 20,200 --delay-ms 200 --warmup-seconds 3 --seconds 3 --passes 1,
    at b9bfeba on 2026-11-29)."""
    run = sweepfolder.load(fixture_copy("sweep", "20261129-080728-sweep"))

    figures = sweep.per_step(run)
    assert len(figures) == 4 and run.problems == []
    assert figures[figures["workload"] == "delay"]["little"].between(0.9, 1.1).all()


def test_a_sweep_renders_its_section_with_plots_and_nothing_from_the_network(fixture_copy):
    folder = fixture_copy("sweep", "20261129-080728-sweep")

    html = render.render_experiment(folder).read_text()

    for section in ["What each model buys: requests in flight", "How far each server held C/D, and why it stopped", "/delay", "/dashboard"]:
        assert f">{section}<" in html, section
    assert html.count("data:image/png;base64,") >= 2
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert offline.external_loads(html) == []


def test_cpu_per_request_is_the_slope_of_cpu_against_throughput_leaving_the_fixed_background_out(tmp_path):
    # 20% of a CPU of background, plus 50 µs a request: at 100/s a step's own average says 2,050 µs, the slope 50.
    steps = [
        _step(**{"pass": p, "concurrency": c, "answered_in_window": c * 9, "requests": c * 10, "server_cpu_s": 10 * (0.2 + c * 50e-6)})
        for p in (1, 2)
        for c in (100, 1000, 2000)
    ]

    row = sweep.cpu_per_request(_run(steps, tmp_path=tmp_path)).iloc[0]

    assert row["µs per request"] == pytest.approx(50)
    assert sweep.per_step(pd.DataFrame(steps))["server_cpu_us_per_request"].iloc[0] == pytest.approx(2050)


def test_a_step_s_cpu_per_request_is_split_by_thread_family_and_what_ended_in_the_window_is_the_rest(tmp_path):
    steps = [_step(**{"pass": p, "server_cpu_s": 2.0, "requests": 1000}) for p in (1, 2)]
    threads = [
        {"pass": p, "server": "vthread", "workload": "delay", "concurrency": 100, "thread_family": family, "cpu_s": seconds}
        for p in (1, 2)
        for family, seconds in (("ForkJoinPool", 1.0), ("C2 CompilerThre", 0.6))
    ]
    run = _run(steps, tmp_path=tmp_path)
    run.threads = pd.DataFrame(threads, columns=sweepfolder.THREADS_COLUMNS)

    split = sweep.cpu_by_thread_family(run).set_index("family")

    # 2 s of CPU over 1,000 requests is 2,000 µs each: 1 s of it the carriers', 0.6 s the compilers', and 0.4 s no family's.
    assert split["µs per request"].to_dict() == pytest.approx({"ForkJoinPool": 1000, "C2 CompilerThre": 600, sweep.ENDED: 400})
    assert split["share"].to_dict() == pytest.approx({"ForkJoinPool": 0.5, "C2 CompilerThre": 0.3, sweep.ENDED: 0.2})
    assert set(split["passes"]) == {2}
    figure = experiment_plots.sweep_cpu_by_thread(run, "delay")
    assert [t.get_text() for t in figure.axes[0].get_legend().get_texts()] == ["ForkJoinPool", "C2 CompilerThre", sweep.ENDED]


def test_a_sweep_from_before_threads_csv_has_no_split_and_no_problem_for_it(tmp_path):
    assert sweep.cpu_by_thread_family(_run([_step()], tmp_path=tmp_path)).empty


def test_a_real_sweeps_thread_families_and_what_ended_add_up_to_each_servers_cpu_per_request(fixture_copy):
    """The four servers on /dashboard at 10, 25 and 50 in flight, D = 100 ms, 3 passes (make sweep at 893c91d on 2026-12-04)."""
    run = sweepfolder.load(fixture_copy("sweep-threads", "20261204-004929-sweep"))
    whole = sweep.per_step(run).set_index(["pass", "server", "workload", "concurrency"])["server_cpu_us_per_request"]

    split = sweep.cpu_by_thread_family(run)
    medians = whole.groupby(["server", "workload", "concurrency"]).median()

    # The median of sums is not the sum of medians, but every family's share of a step is part of that step's whole.
    assert split.groupby(["server", "workload", "concurrency"])["share"].sum().round(9).eq(1).all()
    for (server, workload, concurrency), families in split.groupby(["server", "workload", "concurrency"]):
        assert families["µs per request"].sum() == pytest.approx(medians[(server, workload, concurrency)], rel=0.35), server
    # Each server's families are its own engine's: Netty's event loops on Ktor alone, Jetty's client on Jetty's servers alone.
    engines = split.groupby("server")["family"].agg(set)
    assert "eventLoopGroupP" in engines["ktor-coroutine"] and "jetty-client" not in engines["ktor-coroutine"]
    assert all("jetty-client" in engines[s] and "eventLoopGroupP" not in engines[s] for s in ("jetty-virtual", "jetty-platform", "jetty-coroutine"))


def test_a_sweep_with_threads_renders_where_each_servers_cpu_went(fixture_copy):
    folder = fixture_copy("sweep-threads", "20261204-004929-sweep")

    html = render.render_experiment(folder).read_text()

    assert "CPU went, by thread family" in html
    # The sweep's curves and the split, a plot each.
    assert html.count("data:image/png;base64,") >= 2
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
