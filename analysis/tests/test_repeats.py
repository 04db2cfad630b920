"""Repeats: a server measured more than once, in one run (repeats, a pass without JFR) or across runs."""

import json
import shutil

from labanalysis import repeats
from labanalysis.run import load_run


def _add_pass(run_folder, server, folder, **outcome):
    """Adds a second pass of `server` as the harness names it, with the same data (see Pass.folder)."""
    shutil.copytree(run_folder / server, run_folder / folder)
    manifest = json.loads((run_folder / "manifest.json").read_text())
    first = next(o for o in manifest["outcomes"] if o["server"] == server)
    manifest["outcomes"].append(dict(first, **outcome))
    (run_folder / "manifest.json").write_text(json.dumps(manifest))


def test_one_pass_per_server_has_nothing_to_pool(run_folder):
    assert repeats.medians([load_run(run_folder)]).empty


def test_a_repeat_pools_with_its_first_pass_and_a_pass_without_jfr_stays_apart(run_folder):
    _add_pass(run_folder, "vthread", "vthread-r2", repeat=2)
    _add_pass(run_folder, "vthread", "vthread-without-jfr", jfrStreaming=False)

    run = load_run(run_folder)
    table = repeats.medians([run])

    assert [s.name for s in run.servers][-2:] == ["vthread-r2", "vthread-without-jfr"]
    assert list(table["server"]) == ["vthread"]
    assert table.iloc[0]["repeats"] == 2 and table.iloc[0]["JFR streaming"] == "with"
    assert table.iloc[0]["/json achieved (req/s)"] == "100.0 (100.0 to 100.0)"
    assert [s.name for s in run.comparable] == ["coroutine", "vthread", "platform"]


def test_runs_pool_by_server(run_folder, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(run_folder, other)
    summary = json.loads((other / "vthread" / "k6-summary.json").read_text())
    summary["metrics"]["http_req_duration{endpoint:json}"]["values"]["p(99)"] = 10.0
    (other / "vthread" / "k6-summary.json").write_text(json.dumps(summary))

    table = repeats.medians([load_run(run_folder), load_run(other)]).set_index("server")

    assert list(table["repeats"]) == [2, 2, 2]
    # The fixture's vthread p99 is 4.62 ms; with 10.0 the median of the two is 7.31.
    assert table.loc["vthread", "/json p99 (ms)"] == "7.3 (4.6 to 10.0)"
