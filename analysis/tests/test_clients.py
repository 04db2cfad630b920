"""The client experiments in the report. The fixture is a real, small `make clients` run (20 and
40 calls answered after 2 s, 2 repeats; 80 KB and 1 MB downloads from the three servers, 2 repeats;
2 concurrent 1 MB downloads), its files as written but for the servers' and probe's logs."""

import json
from pathlib import Path

import pytest

from labanalysis.clients import clients, clients_verdicts

FIXTURE = Path(__file__).parent / "fixtures" / "clients"


@pytest.fixture
def clients_folder(fixture_copy) -> Path:
    return fixture_copy("clients", "20261122-075000-clients")


def _rewrite(path: Path, change) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(change(row)) + "\n" for row in rows))


def test_a_whole_run_has_no_problems():
    assert clients.load(FIXTURE).problems == []


def test_the_thread_table_gives_median_and_range_for_each_client_and_number_of_calls():
    table = clients.thread_table(clients.load(FIXTURE))

    assert sorted(table.index) == sorted(
        ["retrofit", "okhttp", "ktor-java", "ktor-cio", "ktor-okhttp", "ktor-apache5", "jdk-httpclient", "retrofit-vthreads", "blocking-vthreads"]
    )
    # Sorted by threads at the most calls: OkHttp's dispatcher clients, a thread a call, come last.
    assert set(table.index[-3:]) == {"retrofit", "okhttp", "ktor-okhttp"}
    assert table.loc["retrofit", "threads, 40 calls"] == "40"
    assert table.loc["retrofit", "threads, 20 calls"] == "20"
    assert table.loc["ktor-java", "threads, 40 calls"] == "1"
    assert "SelectorManager" in table.loc["ktor-java", "left behind after close"]
    assert table.loc["okhttp", "a waiting call holds"].startswith("a thread of OkHttp's dispatcher pool")


def test_a_census_that_missed_calls_in_flight_or_calls_that_failed_is_a_problem(clients_folder):
    def spoil(row):
        if row["client"] == "ktor-cio" and row["requests"] == 40 and row["repeat"] == 1:
            row.update(inFlightAtCensus=31, failedRequests=2, firstError="ConnectException: refused")
        return row

    _rewrite(clients_folder / "threads.jsonl", spoil)

    assert clients.load(clients_folder).problems == [
        "ktor-cio x40 (repeat 1): 31 calls in flight at the census, not 40",
        "ktor-cio x40 (repeat 1): 2 calls failed: ConnectException: refused",
    ]


def test_a_line_cut_mid_write_is_dropped_and_said_and_a_missing_file_too(clients_folder):
    text = (clients_folder / "downloads.jsonl").read_text()
    (clients_folder / "downloads.jsonl").write_text(text[:-40])
    (clients_folder / "concurrent.jsonl").unlink()

    run = clients.load(clients_folder)

    assert run.problems == ["downloads.jsonl: 1 line(s) cut mid-write, dropped", "concurrent.jsonl is missing"]
    assert clients.concurrent_table(run).empty


def test_the_articles_rows_are_checked_against_the_medians(clients_folder):
    # The fixture ran 20 and 40 calls; as if its 40 had been the article's 100.
    def as_100(row):
        if row["requests"] == 40:
            row["requests"] = 100
            row["activeUnparkedNew"] = {"retrofit": 100, "ktor-java": 3}.get(row["client"], row["activeUnparkedNew"])
            row["wallMs"] = 2_300.0
        return row

    _rewrite(clients_folder / "threads.jsonl", as_100)

    claims = clients_verdicts.claims_table(clients.load(clients_folder)).set_index(["client", "calls"])

    assert claims.loc[("retrofit", 100), "threads held?"] == "held"  # 100 against 101: within one thread
    assert claims.loc[("ktor-java", 100), "threads held?"] == "no: +2"
    assert claims.loc[("ktor-cio", 100), "time held?"] == "held"  # 2,300 against 2,242 ms: within 300
    assert claims.loc[("retrofit", 500), "measured: threads"] == "not measured"


def test_download_tables_leave_out_the_checked_warmup_and_rank_clients_by_median():
    run = clients.load(FIXTURE)
    table = clients.download_table(run, 1_000_003)

    assert list(table.columns) == ["coroutine (MB/s)", "platform (MB/s)", "vthread (MB/s)"]
    timed = run.downloads[(run.downloads["repeat"] > 0) & (run.downloads["sizeBytes"] == 1_000_003)]
    assert len(timed) == 10 * 3 * 2  # nine clients and curl, three servers, two repeats
    medians = timed.groupby("client")["mbPerSecond"].median().sort_values(ascending=False)
    assert list(table.index) == list(medians.index)


def test_every_warmup_download_was_checked_byte_by_byte_and_exact():
    d = clients.load(FIXTURE).downloads
    warmup = d[(d["repeat"] == 0) & (d["client"] != "curl")]

    assert len(warmup) == 9 * 3 * 2 and warmup["verified"].all() and warmup["exact"].all()


def test_the_recommendation_for_delayed_calls_is_the_fewest_threads_among_clients_on_time(clients_folder):
    picks = clients_verdicts.recommendations(clients.load(clients_folder))

    delayed = picks[0]
    assert delayed["need"] == "many delayed calls (40 at once, answered after 2000 ms)"
    assert "retrofit," not in delayed["pick"] + "," and "okhttp" not in delayed["pick"]
    assert picks[1]["need"] == "large downloads (1 MB, one at a time)"


def test_a_folder_that_is_not_a_clients_run_is_one_line(tmp_path):
    with pytest.raises(clients.ClientsFolderError, match="not a `make clients` folder"):
        clients.load(tmp_path)
