"""The IO benchmarks in the report. The fixture is a real `java -jar io-bench/target/io-bench.jar`
run (JDK 25.0.3, 128 MiB, 3 warm-ups and 10 single-shot iterations), its io-bench.json and jmh.json as written."""

import json
from pathlib import Path

import pytest

from labanalysis.io import iobench

FIXTURE = Path(__file__).parent / "fixtures" / "io"


@pytest.fixture
def io_folder(fixture_copy) -> Path:
    return fixture_copy("io", "20261122-074453-io")


def test_every_benchmark_has_its_median_range_rate_and_allocation():
    scores = iobench.scores(iobench.load(FIXTURE)).set_index("benchmark")

    assert len(scores) == 8 and set(scores["group"]) == {"file read", "socket write"}
    stream = scores.loc["FileReadBenchmark.inputStream"]
    # The median of ten raw single-shot times is the mean of the 5th and 6th: (30.162018 + 30.792672) / 2.
    assert stream["median_ms"] == pytest.approx(30.477345)
    assert (stream["min_ms"], stream["max_ms"]) == (28.94781, 32.91632)
    assert stream["mb_per_s"] == pytest.approx(134_217_728 / 1e6 / 0.030477345)
    assert scores.loc["FileReadBenchmark.ktorChannel", "alloc_bytes_per_op"] == 4530255.2


def test_the_2021_claims_are_checked_as_times_and_as_the_gap_between_ktor_and_plain_io():
    claims = iobench.claims_table(iobench.load(FIXTURE)).set_index("path")

    ktor_read = claims.loc["Ktor ByteReadChannel (File.readChannel)"]
    assert ktor_read["2021 (Ktor 1.x), mean ms"] == 1239.65
    assert ktor_read["today, mean ms"] == pytest.approx(106.7, abs=0.05)
    assert ktor_read["held?"] == "no: 0.09x the 2021 time"
    # 2021: 1239.65 / 58.5 = 21.2x; today 106.74 / 30.54 = 3.5x of it, 0.16 of the old gap.
    gap = claims.loc["Ktor channel read / stream read"]
    assert gap["2021 (Ktor 1.x), mean ms"] == "21.2x"
    assert gap["today, mean ms"] == "3.5x"
    assert gap["held?"] == "no: the gap is 0.16x what it was"


def test_the_pick_for_each_need_is_the_fastest_path_with_the_ktor_figure_beside_it():
    picks = {p["need"]: p for p in iobench.recommendations(iobench.load(FIXTURE))}

    read = picks["reading a large file (128.0 MiB)"]
    assert read["pick"].split(", ")[0] == "NIO FileChannel"
    assert "Ktor 97 ms" in read["because"]
    assert "writing a large body to a socket (128.0 MiB)" in picks


def test_a_failed_benchmark_and_a_missing_result_are_problems(io_folder):
    manifest = json.loads((io_folder / "io-bench.json").read_text())
    manifest["failedBenchmark"] = "lab.io.SocketWriteBenchmark.ktorSocket"
    (io_folder / "io-bench.json").write_text(json.dumps(manifest))
    results = [r for r in json.loads((io_folder / "jmh.json").read_text()) if not r["benchmark"].endswith("ktorSocket")]
    (io_folder / "jmh.json").write_text(json.dumps(results))

    problems = iobench.load(io_folder).problems

    assert problems == ["lab.io.SocketWriteBenchmark.ktorSocket failed; see jmh.log", "lab.io.SocketWriteBenchmark.ktorSocket has no result"]


def test_jmh_results_cut_short_are_said_not_raised(io_folder):
    text = (io_folder / "jmh.json").read_text()
    (io_folder / "jmh.json").write_text(text[: len(text) // 2])

    io = iobench.load(io_folder)

    assert io.problems[0] == "jmh.json is cut short (the run was stopped while JMH wrote it)"
    assert iobench.table(io).empty


def test_a_folder_that_is_not_an_io_run_is_one_line(tmp_path):
    with pytest.raises(iobench.IoFolderError, match="not a `make io-bench` folder"):
        iobench.load(tmp_path)
