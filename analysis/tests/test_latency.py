"""Latency: k6's summary per endpoint, the raw samples behind it, and a percentile's interval.
The fixture's figures are recomputed here from its raw files (k6-metrics.csv.gz, k6-summary.json, wire.csv) with csv, gzip and
numpy, not with labanalysis."""

import csv
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from labanalysis.bench import latency
from labanalysis.folder.outcome import PassOutcome
from labanalysis.folder.run import Run, ServerRun, load_run
from labanalysis.verdict import perpass

SERVERS = ["ktor-coroutine", "jetty-virtual", "jetty-coroutine", "jetty-platform"]  # the manifest's pass order


def raw_samples(run_folder: Path, name: str, metric: str, endpoint: str) -> np.ndarray:
    """By plain means: the values of every `metric` row of the pass's k6-metrics.csv.gz that k6 tagged `endpoint=<endpoint>`."""
    with gzip.open(run_folder / name / "k6-metrics.csv.gz", "rt") as f:
        rows = [r for r in csv.DictReader(f) if r["metric_name"] == metric and r["extra_tags"] == f"endpoint={endpoint}"]
    return np.array([float(r["metric_value"]) for r in rows])


def k6_percentile(values: np.ndarray, q: float) -> float:
    """k6's rule (latency.percentile's docstring): over the sorted values, i = q/100 * (n - 1), and a linear step between
    x[floor(i)] and x[ceil(i)]."""
    x = np.sort(values)
    i = q / 100 * (len(x) - 1)
    low, high = math.floor(i), math.ceil(i)
    return float(x[low] + (x[high] - x[low]) * (i - low))


def test_the_json_table_is_k6s_summary_of_the_steady_phase(run_folder):
    table = latency.endpoint_table(load_run(run_folder), "json").set_index("run")

    # k6's summary is of the requests it tagged endpoint=json (the steady phase; the warm-up and the curve's steps have tags of
    # their own), so its figures are those of the same raw samples by k6's rule.
    for name in SERVERS:
        durations = raw_samples(run_folder, name, "http_req_duration", "json")
        assert table.loc[name, "p(99)"] == pytest.approx(k6_percentile(durations, 99)), name
        assert table.loc[name, "p(99.9)"] == pytest.approx(k6_percentile(durations, 99.9)), name
        assert table.loc[name, "max"] == pytest.approx(durations.max()), name
        assert table.loc[name, "requests"] == len(durations) == 401
        assert raw_samples(run_folder, name, "http_req_failed", "json").sum() == 0
    # 100 requests a second for the profile's 4 steady seconds, and one more at the fourth second's end: 401 that did not fail,
    # over the phase's declared 4 seconds.
    assert list(table["requests_per_second"]) == [401 / 4] * 4
    # The raw samples hold no dropped_iterations row at all.
    assert list(table["dropped_iterations"]) == [0, 0, 0, 0]
    assert list(table["failed_requests"]) == [0, 0, 0, 0]


def test_a_server_without_a_k6_summary_has_blanks_not_zeros(run_folder):
    (run_folder / "jetty-virtual" / "k6-summary.json").unlink()

    row = latency.endpoint_table(load_run(run_folder), "json").set_index("run").loc["jetty-virtual"]

    assert math.isnan(row["p(99)"]) and math.isnan(row["requests"])


def test_durations_are_the_steady_phases_requests(run_folder):
    server = load_run(run_folder).server("jetty-virtual")
    json_raw = raw_samples(run_folder, "jetty-virtual", "http_req_duration", "json")

    # The rows tagged endpoint=json and endpoint=dashboard: 401 and 40, none of the warm-ups' or the curve's.
    assert len(latency.durations(server, "json")) == len(json_raw) == 401
    assert len(latency.durations(server, "dashboard")) == len(raw_samples(run_folder, "jetty-virtual", "http_req_duration", "dashboard")) == 40
    assert latency.percentile_interval(latency.timed_durations(server, "json"), 99)[0] == pytest.approx(k6_percentile(json_raw, 99))


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
    server = load_run(run_folder).server("jetty-platform")

    frame = latency.per_second(server, "json")

    # The pass's 401 rows tagged endpoint=json, and its 300 lab_sockets_opened rows of 1 each (the profile's 300 idle sockets).
    assert frame["requests"].sum() == len(raw_samples(run_folder, "jetty-platform", "http_req_duration", "json")) == 401
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
    assert run.servers, "the fixture holds passes"
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
    server = ServerRun(
        DROPPED, PassOutcome(server="any", status="ok", seconds=600.0, json_steady_from_epoch_second=expected["jsonSteadyFromEpochSecond"])
    )

    assert latency.dropped_iterations(server, scenario) == expected["dropped"][scenario]


def test_a_pass_that_never_reached_the_steady_json_phase_has_no_dropped_iterations_count(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    outcome = next(o for o in manifest["outcomes"] if o["server"] == "ktor-coroutine")
    del outcome["jsonSteadyFromEpochSecond"]
    (run_folder / "manifest.json").write_text(json.dumps(manifest))

    server = load_run(run_folder).server("ktor-coroutine")

    # Not 0: without the phase's first second there is nothing to count from.
    assert math.isnan(latency.dropped_iterations(server, "json"))


# ---- the wire's response times (wire.csv) ---------------------------------------------------------------------------------------


def write_wire(folder: Path, rows: list[tuple[float, str, str, float]]) -> None:
    lines = ["time_s,phase,endpoint,ms", *(f"{t},{phase},{endpoint},{ms}" for t, phase, endpoint, ms in rows)]
    (folder / "wire.csv").write_text("\n".join(lines) + "\n")


def test_wire_durations_are_the_endpoints_requests_in_its_steady_phase(run_folder):
    write_wire(
        run_folder / "jetty-virtual",
        [
            (70.1, "json-warmup", "json", 50.0),  # the warm-up is not the figure
            (75.0, "json", "json", 1.5),
            (75.2, "json", "ws", 9.0),  # a WebSocket handshake, another endpoint
            (76.0, "json", "json", 2.5),
            (101.0, "dashboard", "dashboard", 30.0),
        ],
    )
    server = load_run(run_folder).server("jetty-virtual")

    assert list(latency.wire_durations(server, "json")) == [1.5, 2.5]
    assert list(latency.wire_durations(server, "dashboard")) == [30.0]


def test_the_fixtures_wire_durations_are_its_wire_csv_rows_of_the_json_phase_and_endpoint(run_folder):
    with open(run_folder / "jetty-virtual" / "wire.csv") as f:
        expected = [float(r["ms"]) for r in csv.DictReader(f) if r["phase"] == "json" and r["endpoint"] == "json"]

    wire = latency.wire_durations(load_run(run_folder).server("jetty-virtual"), "json")

    # 399 rows, counted in the file: the wire's count is its own (k6 tagged 401 json requests), and the figure takes the wire's.
    assert list(wire) == expected and len(expected) == 399


def test_a_pass_without_wire_csv_has_no_wire_durations_and_no_problem_of_its_own(run_folder):
    # A host that lets the harness read no packets writes no wire.csv, and the pass's marks say why: its absence is not
    # a problem twice, whatever the other passes have.
    (run_folder / "jetty-platform" / "wire.csv").unlink()
    run = load_run(run_folder)

    assert latency.wire_durations(run.server("jetty-platform"), "json").empty
    assert not any("wire.csv" in p for p in run.server("jetty-platform").problems)
    assert not latency.wire_durations(run.server("jetty-virtual"), "json").empty


def test_where_vegeta_offered_the_steady_json_phase_its_figures_are_vegetas_by_the_curves_rule(tmp_path, bench_manifest):
    # The profile's jsonGenerator "vegeta": its attack `json` runs 10-14 s of load at 100/s, each request 2 ms; the 51st went out
    # 1.5 s late (dropped, as k6 drops an iteration it cannot start within a second), the 100th failed its check.
    folder = tmp_path / "jetty-virtual"
    folder.mkdir()
    lines = ["time_s,phase,attack,seq,endpoint,status,ms,checks_passed,error"]
    for seq in range(400):
        at = 10 + seq / 100 + (1.5 if seq == 51 else 0)
        lines.append(f"{at:.3f},json,json,{seq},json,{500 if seq == 100 else 200},{2 + seq / 1000},{0 if seq == 100 else 1},")
    (folder / "vegeta.csv.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    server = ServerRun(folder=folder, outcome=PassOutcome(server="jetty-virtual", status="ok", seconds=600.0, load_start_epoch_ms=1_000_000))
    timeline = [
        {"name": "json-warmup", "fromSeconds": 0, "toSeconds": 10, "endpoint": "json", "ratePerSecond": 100, "ramp": True},
        {"name": "json", "fromSeconds": 10, "toSeconds": 14, "endpoint": "json", "ratePerSecond": 100, "generator": "vegeta"},
    ]
    ran = Run(tmp_path, bench_manifest(timeline=timeline, profile={"jsonSeconds": 4}), [server])

    row = latency.endpoint_table(ran, "json").set_index("run").loc["jetty-virtual"]
    ms = np.array([2 + seq / 1000 for seq in range(400)])
    assert row["requests"] == 400 and row["failed_requests"] == 1 and row["dropped_iterations"] == 1
    assert row["requests_per_second"] == 399 / 4
    assert row["p(99)"] == pytest.approx(k6_percentile(ms, 99)) and row["max"] == pytest.approx(ms.max())
    # Each request stamped with the whole epoch second it went out in, as k6 stamps its samples: 1,010 to 1,013, the late one too.
    timed = latency.timed_durations(server, "json")
    assert len(timed) == 400 and sorted(set(timed["timestamp"])) == [1010, 1011, 1012, 1013]


def test_the_wire_p99_of_a_pass_carries_its_interval_within_the_pass_which_holds_it(run_folder):
    server = next(s for s in load_run(run_folder).servers if s.name == "jetty-virtual")
    p99 = latency.percentile(latency.wire_durations(server, "json"), 99)

    low, high = perpass.intervals_of(server)[perpass.JSON_WIRE_P99]

    # Resampled over the phase's seconds: every second's requests together, so a slow second moves the whole interval.
    assert low <= p99 <= high
    assert low < high
    assert set(latency.wire_timed(server, "json")["timestamp"]) == {
        int(t) for t in server.wire.query("phase == 'json' and endpoint == 'json'")["time_s"]
    }
