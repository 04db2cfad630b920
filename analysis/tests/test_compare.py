"""make compare: two run folders in one self-contained report, figure by figure and server by server, B against A."""

import csv
import json
import math
import shutil

import pytest
from conftest import REPEATS

from labanalysis.folder.run import load_run
from labanalysis.report import offline, render
from labanalysis.stats import Across
from labanalysis.verdict import compare, perpass

SECTIONS = ["How to read this", "What differs between the runs", "Figures, B against A", "Servers in one run only, and passes left out or marked"]


@pytest.fixture
def runs(tmp_path):
    """A and B: two copies of the repeats-run fixture (vthread and platform, three passes each), B's to be changed by each test."""

    def copy(name):
        folder = tmp_path / name
        shutil.copytree(REPEATS, folder)
        return folder

    return copy("20261123-100000-a"), copy("20261123-110000-b")


def edit_manifest(folder, change):
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def on_jdk_21_at_40_per_second(manifest):
    manifest["provenance"]["jdk"] = {"home": "/jdk21", "version": "21.0.8", "feature": 21, "vendor": "Eclipse Adoptium"}
    manifest["jsonRatePerSecond"] = 40


def double_the_threads(folder, passes):
    """Every /proc sample's thread count doubled in `passes`: the peak OS threads of each is twice A's."""
    for name in passes:
        path = folder / name / "proc.csv"
        rows = list(csv.DictReader(path.open()))
        for row in rows:
            row["threads"] = str(2 * int(row["threads"]))
        with path.open("w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def pair(pairs, figure, server):
    return next(p for p in pairs if p.figure == figure and p.server == server)


def test_two_runs_render_one_report_beside_b_with_every_section_and_nothing_loaded_from_the_network(runs):
    a, b = runs
    edit_manifest(b, on_jdk_21_at_40_per_second)

    report = render.render_compare(a, b)

    html = report.read_text()
    assert report == b.parent / "compare-20261123-100000-a-vs-20261123-110000-b" / "report.html"
    for section in SECTIONS:
        assert f">{section}<" in html, section
    assert "B differs from A in:</strong> JDK, /json rate." in html
    assert html.count('src="data:image/png;base64,') == 1, "the ratios' plot"
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert offline.external_loads(html) == [], "the report loads nothing from the network"
    # Each run's own report, relative to the comparison's folder.
    assert 'href="../20261123-100000-a/report.html"' in html


def test_the_manifests_differences_are_listed_jdk_first(runs):
    a, b = runs
    edit_manifest(b, on_jdk_21_at_40_per_second)

    differences = compare.manifest_differences(load_run(a), load_run(b)).set_index("")

    assert differences.loc["JDK"].to_dict() == {"A": "25.0.3 Eclipse Adoptium", "B": "21.0.8 Eclipse Adoptium", "differs": "yes"}
    assert differences.loc["/json rate"].to_dict() == {"A": "20/s", "B": "40/s", "differs": "yes"}
    assert differences.loc["git commit", "differs"] == "" and differences.loc["JVM flags", "differs"] == ""


def test_a_figure_whose_settings_differ_is_marked_not_comparable_and_gets_no_ratio(runs):
    a, b = runs
    edit_manifest(b, on_jdk_21_at_40_per_second)

    pairs = compare.pairs(load_run(a), load_run(b))

    p99 = pair(pairs, perpass.JSON_P99, "jetty-virtual")
    assert p99.verdict == "not comparable: jsonRatePerSecond 20 against 40" and math.isnan(p99.ratio)
    assert p99.a == p99.b == Across(6.0, 5.0, 7.0, 3), "each run's figure is still shown: 5, 6 and 7 ms"
    # A per-socket slope does not depend on the /json rate: the same run twice, so the same figure.
    heap = pair(pairs, perpass.LIVE_HEAP, "jetty-virtual")
    assert heap.ratio == 1.0 and heap.verdict == "the same"
    html = render.render_compare(a, b).read_text()
    assert "not comparable: jsonRatePerSecond 20 against 40" in html


def test_b_is_better_or_worse_only_where_every_pass_of_one_is_beyond_every_pass_of_the_other(runs):
    a, b = runs
    double_the_threads(b, ["vthread", "vthread-r2", "vthread-r3"])

    pairs = compare.pairs(load_run(a), load_run(b))

    threads = pair(pairs, perpass.THREADS, "jetty-virtual")
    assert (threads.a.median, threads.b.median, threads.ratio) == (40.0, 80.0, 2.0)
    assert threads.verdict == "B worse: apart across passes"
    assert compare.table([threads]).iloc[0]["B / A"] == "2.00x (+100.0%)"


@pytest.mark.parametrize(
    ("a", "b", "lower_is_better", "expected"),
    [
        (Across(10, 9, 11, 3), Across(5, 4, 6, 3), True, "B better: apart across passes"),
        (Across(10, 9, 11, 3), Across(5, 4, 6, 3), False, "B worse: apart across passes"),
        (Across(10, 9, 11, 3), Across(8, 7, 9.5, 3), True, "overlap across passes: not resolved"),
        (Across(10, math.nan, math.nan, 1), Across(5, math.nan, math.nan, 1), True, "one pass: no comparison can be concluded"),
        (Across(10, 9, 11, 3), Across(10, 8, 12, 3), True, "the same"),
    ],
)
def test_the_verdict_comes_from_the_ranges_across_passes(a, b, lower_is_better, expected):
    figure = perpass.Figure("a_figure_units", "a figure (units)", "units", lower_is_better=lower_is_better)
    assert compare.verdict(figure, a, b) == expected


def test_a_server_in_one_run_only_is_named_and_not_compared(runs):
    a, b = runs

    def vthread_only(manifest):
        manifest["servers"] = ["vthread"]
        manifest["outcomes"] = [o for o in manifest["outcomes"] if o["server"] == "vthread"]

    edit_manifest(b, vthread_only)
    run_a, run_b = load_run(a), load_run(b)

    # The fixture's runs were made before the rename of 2026-11-29: pairs and notes name the servers as the catalogue now does.
    assert {p.server for p in compare.pairs(run_a, run_b)} == {"jetty-virtual"}
    assert compare.in_one(run_a, run_b) == ["only in A (20261123-100000-a): jetty-platform"]
    assert "only in A (20261123-100000-a): jetty-platform" in render.render_compare(a, b).read_text()


def test_a_run_from_before_the_rename_is_compared_server_by_server_with_one_after_it(runs):
    a, b = runs
    new_names = {"vthread": "jetty-virtual", "platform": "jetty-platform"}

    def renamed(manifest):
        manifest["servers"] = [new_names[s] for s in manifest["servers"]]
        for outcome in manifest["outcomes"]:
            outcome["server"] = new_names[outcome["server"]]

    edit_manifest(b, renamed)
    run_a, run_b = load_run(a), load_run(b)

    assert compare.in_one(run_a, run_b) == []
    for server in new_names.values():
        peak = pair(compare.pairs(run_a, run_b), perpass.THREADS, server)
        assert peak.a.passes == peak.b.passes == 3 and peak.a.median == peak.b.median, peak


def test_a_server_that_failed_in_every_pass_says_so_in_place_of_its_figures(runs):
    a, b = runs

    def platform_killed(manifest):
        assert any(o["server"] == "platform" for o in manifest["outcomes"]), "the fixture has platform passes to fail"
        for outcome in manifest["outcomes"]:
            if outcome["server"] == "platform":
                outcome.update(status="failed", reason="exited with 137 (SIGKILL) in phase json")

    edit_manifest(b, platform_killed)

    pairs = compare.pairs(load_run(a), load_run(b))

    heap = pair(pairs, perpass.LIVE_HEAP, "jetty-platform")
    assert heap.verdict == "B: platform failed in every pass (failed: exited with 137 (SIGKILL) in phase json)"
    assert math.isnan(heap.ratio) and heap.b.passes == 0 and heap.a.passes == 3
    assert pair(pairs, perpass.LIVE_HEAP, "jetty-virtual").verdict == "the same"
    html = render.render_compare(a, b).read_text()
    assert "B: 20261123-110000-b/platform-r2: failed; its figures are not compared" in html


def test_the_same_folder_twice_or_a_missing_one_is_one_line_and_exit_code_2(runs, tmp_path, capsys):
    a, _ = runs

    assert render.main(["--compare", str(a), str(a)]) == 2
    assert render.main(["--compare", str(a), str(tmp_path / "nowhere")]) == 2
    assert render.main(["--compare", str(a)]) == 2

    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert "A and B are the same run" in lines[0] and "no manifest.json" in lines[1] and "make compare A=" in lines[2]


def test_the_hosts_speed_is_set_beside_the_figures_from_k6s_cpu_per_request(runs):
    a, b = runs
    run_a, run_b = load_run(a), load_run(b)

    # The fixture's k6 uses 0.45 cores through /json at 20 requests a second: 22,500 µs a request, in the passes that answered them all.
    assert compare.host_speed(run_a).median == 22_500
    sentence = compare.host_speed_sentence(run_a, run_b)
    assert "A 22,500 [" in sentence and "B / A 1.00x (+0.0%)" in sentence


def test_passes_whose_latency_measures_the_load_generator_are_named_with_their_run(runs):
    a, _ = runs

    marks = compare.marked(load_run(a), "A")

    # platform-r2's load CPUs were 95% busy in 6 of its 10 /json seconds (make_repeats_run.py).
    assert len(marks) == 1 and marks[0].startswith("A: 20261123-100000-a/platform-r2: ")
