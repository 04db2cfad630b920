"""Latency: k6's summary per endpoint, the raw samples behind it, and a percentile's interval.
The fixture's values were read by hand from its k6-summary.json and k6-metrics.csv.gz."""

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from labanalysis import latency
from labanalysis.run import ServerRun, load_run


def test_the_json_table_is_k6s_summary_of_the_steady_phase(run_folder):
    table = latency.endpoint_table(load_run(run_folder), "json").set_index("run")

    assert table.loc["vthread", "p(99)"] == pytest.approx(4.61776657)
    assert table.loc["platform", "p(99.9)"] == pytest.approx(4.84234328)
    assert table.loc["coroutine", "max"] == pytest.approx(13.254537)
    # 100 requests a second for the profile's 8 steady seconds; the warm-up is not counted.
    assert list(table["requests"]) == [800, 800, 800]
    assert list(table["requests_per_second"]) == [100, 100, 100]
    assert list(table["dropped_iterations"]) == [0, 0, 0]
    assert list(table["failed_requests"]) == [0, 0, 0]


def test_a_server_without_a_k6_summary_has_blanks_not_zeros(run_folder):
    (run_folder / "vthread" / "k6-summary.json").unlink()

    row = latency.endpoint_table(load_run(run_folder), "json").set_index("run").loc["vthread"]

    assert math.isnan(row["p(99)"]) and math.isnan(row["requests"])


def test_durations_are_the_steady_phases_requests(run_folder):
    server = load_run(run_folder).server("vthread")

    assert len(latency.durations(server, "json")) == 800
    assert len(latency.durations(server, "dashboard")) == 81
    # k6's own p(99) of the same 800 samples (its summary): one percentile rule throughout.
    assert latency.percentile_interval(latency.durations(server, "json"), 99)[0] == pytest.approx(4.61776657)


def test_a_percentile_interval_brackets_the_percentile():
    values = pd.Series(range(1, 1001), dtype=float)

    p99, low, high = latency.percentile_interval(values, 99)

    assert p99 == pytest.approx(990.01)
    assert low <= p99 <= high
    assert high - low < 20


def test_an_empty_sample_has_no_percentile():
    assert all(math.isnan(x) for x in latency.percentile_interval(pd.Series(dtype=float), 99))


def test_per_second_counts_every_request_and_every_socket(run_folder):
    server = load_run(run_folder).server("platform")

    frame = latency.per_second(server, "json")

    assert frame["requests"].sum() == 800
    assert frame["sockets_opened"].iloc[-1] == 300
    assert frame["sockets_opened"].is_monotonic_increasing
    assert (frame.loc[frame["requests"] > 0, "p99_ms"] >= frame.loc[frame["requests"] > 0, "p50_ms"]).all()


@pytest.mark.parametrize(
    "values, q, expected",
    [
        (range(1, 1002), 99, 991),  # i = 0.99 * 1000 = 990: exactly the 991st value
        (range(1, 1002), 99.9, 1000),
        (range(1, 1001), 99, 990.01),  # i = 989.01: a hundredth of the way from 990 to 991
        ([7.0], 99, 7.0),
        ([1.0, 3.0], 50, 2.0),
    ],
)
def test_a_percentile_is_k6s_linear_step_between_the_closest_ranks(values, q, expected):
    assert latency.percentile(list(values), q) == pytest.approx(expected)


@pytest.mark.parametrize("endpoint", ["json", "dashboard"])
def test_every_percentile_of_the_raw_samples_is_k6s_own_summary(run_folder, endpoint):
    run = load_run(run_folder)
    for server in run.servers:
        summary = server.k6_metrics[f"http_req_duration{{endpoint:{endpoint}}}"]["values"]
        samples = latency.durations(server, endpoint)
        for name, q in [("med", 50), ("p(90)", 90), ("p(99)", 99), ("p(99.9)", 99.9)]:
            # k6 records whole nanoseconds and its CSV keeps 6 decimals of a ms: nothing is lost.
            assert latency.percentile(samples, q) == pytest.approx(summary[name], rel=1e-9), f"{server.name} {endpoint} {name}"


DROPPED = Path(__file__).parent / "fixtures" / "dropped-iterations"


@pytest.mark.parametrize("scenario", ["json", "dashboard", "pin_traps"])
def test_dropped_iterations_count_the_steady_json_phase_and_whole_other_scenarios(scenario):
    expected = json.loads((DROPPED / "expected.json").read_text())
    server = ServerRun(DROPPED, {"server": "any", "jsonSteadyFromEpochSecond": expected["jsonSteadyFromEpochSecond"]})

    assert latency.dropped_iterations(server, scenario) == expected["dropped"][scenario]


def test_a_run_from_before_the_steady_second_was_recorded_has_the_harness_count(run_folder):
    server = load_run(run_folder).server("coroutine")

    assert "jsonSteadyFromEpochSecond" not in server.outcome
    assert latency.dropped_iterations(server, "json") == server.outcome["jsonDroppedIterations"]
