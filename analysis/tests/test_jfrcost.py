"""What the JFR stream costs, from passes with the stream and without it. The fixture's passes are make_repeats_run.py's, all with
the stream: /json at 20 requests a second, the server at 0.30 (vthread) or 0.50 (platform) cores in its /json phase, so 15,000 and
25,000 µs of CPU per request. Each test adds passes without the stream whose cores it sets, so each cost is known."""

import json
import math
import shutil

import pandas as pd
import pytest

from labanalysis.folder.run import load_run
from labanalysis.verdict import jfrcost, perpass

CPU = perpass.CPU.key


def _without_stream(folder, cores_by_pass: dict[str, float]) -> None:
    """Adds a pass without the stream for each of `cores_by_pass` (a pass of the fixture, copied), with the server at those cores
    in its /json phase."""
    manifest = json.loads((folder / "manifest.json").read_text())
    outcomes = {o["folder"]: o for o in manifest["outcomes"]}
    for name, cores in cores_by_pass.items():
        server, _, repeat = name.partition("-r")
        target = f"{server}-without-jfr" + (f"-r{repeat}" if repeat else "")
        shutil.copytree(folder / name, folder / target)
        path = folder / target / "cpu.csv"
        frame = pd.read_csv(path)
        frame.loc[frame["phase"] == "json", "server"] = cores
        frame.to_csv(path, index=False)
        manifest["outcomes"].append({**outcomes[name], "folder": target, "jfrStreaming": False})
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _row(table: pd.DataFrame, server: str) -> pd.Series:
    """The server's CPU per request in jfrcost.table, which is for a reader: it names the figure by its label."""
    return table[(table["server"] == server) & (table["figure"] == "server CPU per /json request (µs)")].iloc[0]


def test_a_run_where_every_pass_streamed_has_no_cost_to_show(repeats_folder):
    assert not jfrcost.measured(load_run(repeats_folder))


def test_the_cpu_per_request_of_each_pass_is_its_cores_over_the_rate_it_served(repeats_folder):
    _without_stream(repeats_folder, {"vthread": 0.24, "vthread-r2": 0.25, "vthread-r3": 0.20})

    passes = jfrcost.per_pass(load_run(repeats_folder))

    cpu = passes[(passes["figure"] == CPU) & (passes["server"] == "vthread")]
    by_pass = dict(zip(cpu["pass"], cpu["value"], strict=True))
    assert by_pass == pytest.approx(
        {
            "vthread": 15_000,
            "vthread-r2": 15_000,
            "vthread-r3": 15_000,
            "vthread-without-jfr": 12_000,
            "vthread-without-jfr-r2": 12_500,
            "vthread-without-jfr-r3": 10_000,
        }
    )
    assert set(cpu.loc[cpu["pass"].str.contains("without"), "stream"]) == {jfrcost.WITHOUT}


def test_the_cost_is_the_ratio_of_the_medians_and_apart_only_when_every_pass_with_the_stream_is_above_every_pass_without(
    repeats_folder,
):
    # vthread: without the stream 12,000 / 12,500 / 10,000 µs against 15,000 in each pass with it: apart, 15,000 / 12,000.
    # platform: without 24,000 / 26,000 / 25,000 µs against 25,000 with it: the sets overlap.
    _without_stream(
        repeats_folder,
        {"vthread": 0.24, "vthread-r2": 0.25, "vthread-r3": 0.20, "platform": 0.48, "platform-r2": 0.52, "platform-r3": 0.50},
    )

    table = jfrcost.table(load_run(repeats_folder))

    vthread = _row(table, "Jetty 12, virtual threads")
    assert vthread["with / without"] == pytest.approx(1.25)
    assert vthread["apart?"] == "higher with the stream in every pass"
    assert vthread[jfrcost.WITHOUT] == "12,000 [10,000, 12,500] over 3 passes"
    platform = _row(table, "Jetty 12, platform threads")
    assert platform["with / without"] == pytest.approx(1.0)
    assert platform["apart?"] == "overlap across passes: not resolved"


def test_one_pass_without_the_stream_concludes_nothing(repeats_folder):
    _without_stream(repeats_folder, {"vthread": 0.10})

    row = _row(jfrcost.table(load_run(repeats_folder)), "Jetty 12, virtual threads")

    assert row["apart?"] == "one pass: no comparison can be concluded"
    assert row["with / without"] == pytest.approx(3.0)


def test_a_failed_pass_is_not_counted(repeats_folder):
    _without_stream(repeats_folder, {"vthread": 0.24, "vthread-r2": 0.25})
    manifest = json.loads((repeats_folder / "manifest.json").read_text())
    next(o for o in manifest["outcomes"] if o["folder"] == "vthread-without-jfr-r2")["status"] = "failed"
    (repeats_folder / "manifest.json").write_text(json.dumps(manifest))

    passes = jfrcost.per_pass(load_run(repeats_folder))

    assert "vthread-without-jfr-r2" not in set(passes["pass"])
    assert not math.isnan(passes.loc[passes["pass"] == "vthread-without-jfr", "value"].iloc[0])
