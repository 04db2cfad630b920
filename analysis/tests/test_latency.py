"""Latency: k6's summary per endpoint, the raw samples behind it, and a percentile's interval.
The fixture's values were read by hand from its k6-summary.json and k6-metrics.csv.gz."""

import json
import math
from pathlib import Path

import numpy as np
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
    assert latency.percentile_interval(latency.timed_durations(server, "json"), 99)[0] == pytest.approx(4.61776657)


def test_an_empty_sample_has_no_percentile():
    empty = pd.DataFrame({"timestamp": [], "duration_ms": []})

    assert all(math.isnan(x) for x in latency.percentile_interval(empty, 99))


# ---- a percentile's interval within a pass: a block bootstrap over seconds ----------------------------

BURST_SHARE = 0.05  # the share of seconds in a burst, in which every request is slow
RATE = 50  # requests a second
# The truth: a request is slow with probability BURST_SHARE, and then uniform on [100, 200] ms; fast ones are under 10 ms. So the
# p99 is the x with BURST_SHARE * P(slow > x) = 0.01: P(slow > x) = 0.2, x = 180 ms.
TRUE_P99 = 180.0


def bursty(seconds: int, seed: int) -> pd.DataFrame:
    """`seconds` of requests at RATE a second: fast (1 to 10 ms), except in the seconds of a burst (BURST_SHARE of them, at random),
    in which every request takes 100 to 200 ms, as behind a GC or a stall."""
    rng = np.random.default_rng(seed)
    burst = rng.random(seconds) < BURST_SHARE
    stamps = np.repeat(np.arange(seconds) + 1_800_000_000, RATE)
    slow = np.repeat(burst, RATE)
    durations = np.where(slow, rng.uniform(100, 200, len(stamps)), rng.uniform(1, 10, len(stamps)))
    return pd.DataFrame({"timestamp": stamps, "duration_ms": durations})


def per_request_interval(timed: pd.DataFrame, q: float, seed: int = 1) -> tuple[float, float]:
    """The interval the report used to give: a bootstrap that draws requests one at a time, as if each were independent."""
    rng = np.random.default_rng(seed)
    values = timed["duration_ms"].to_numpy()
    resampled = [latency.percentile(rng.choice(values, size=len(values)), q) for _ in range(latency.RESAMPLES)]
    return latency.percentile(resampled, 2.5), latency.percentile(resampled, 97.5)


def test_with_bursts_the_block_interval_is_wider_than_the_per_request_one():
    timed = bursty(seconds=300, seed=3)

    _, low, high = latency.percentile_interval(timed, 99)
    request_low, request_high = per_request_interval(timed, 99)

    assert high - low > 3 * (request_high - request_low)


def test_with_bursts_the_block_interval_covers_the_true_p99_where_the_per_request_one_mostly_does_not():
    passes = [bursty(seconds=300, seed=seed) for seed in range(20)]

    block = [low <= TRUE_P99 <= high for _, low, high in (latency.percentile_interval(t, 99) for t in passes)]
    per_request = [low <= TRUE_P99 <= high for low, high in (per_request_interval(t, 99) for t in passes)]

    # A 95% interval should cover the truth about 19 times in 20; the per-request one, blind to the bursts, far fewer.
    assert sum(block) >= 17
    assert sum(per_request) <= 10


def test_without_bursts_the_block_interval_brackets_the_percentile_and_is_narrow():
    values = pd.DataFrame({"timestamp": np.repeat(np.arange(100), 10), "duration_ms": np.arange(1, 1001, dtype=float)})

    p99, low, high = latency.percentile_interval(values, 99)

    assert p99 == pytest.approx(990.01)
    assert low <= p99 <= high


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


# ---- the wire's response times (wire.csv) ---------------------------------------------------------------------------------------


def write_wire(folder: Path, rows: list[tuple[float, str, str, float]]) -> None:
    lines = ["time_s,phase,endpoint,ms", *(f"{t},{phase},{endpoint},{ms}" for t, phase, endpoint, ms in rows)]
    (folder / "wire.csv").write_text("\n".join(lines) + "\n")


def test_wire_durations_are_the_endpoints_requests_in_its_steady_phase(run_folder):
    write_wire(
        run_folder / "vthread",
        [
            (70.1, "json-warmup", "json", 50.0),  # the warm-up is not the figure
            (75.0, "json", "json", 1.5),
            (75.2, "json", "ws", 9.0),  # a WebSocket handshake, another endpoint
            (76.0, "json", "json", 2.5),
            (101.0, "dashboard", "dashboard", 30.0),
        ],
    )
    server = load_run(run_folder).server("vthread")

    assert list(latency.wire_durations(server, "json")) == [1.5, 2.5]
    assert list(latency.wire_durations(server, "dashboard")) == [30.0]


def test_a_pass_without_wire_csv_in_a_run_whose_other_passes_have_one_says_so(run_folder):
    write_wire(run_folder / "vthread", [(75.0, "json", "json", 1.5)])
    run = load_run(run_folder)

    assert latency.wire_durations(run.server("platform"), "json").empty
    assert any("wire.csv is missing" in p for p in run.server("platform").problems)
    assert not latency.wire_durations(run.server("vthread"), "json").empty
