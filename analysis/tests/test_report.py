"""The report: the notebook run headless on a run folder, exported to one self-contained report.html."""

import json
import re
from pathlib import Path

import pytest

from labanalysis.report import offline, render

SECTIONS = [
    "Who wins what",
    "The engine \u00d7 model grid",
    "Model effect",
    "Engine effect",
    "Per-socket decomposition",
    "Memory split into its parts",
    "The largest classes per socket",
    "At 50,000 sockets",
    "CPU of every process",
    "Claims checked",
    "The run",
    "Memory per idle connection (/proc, per pass)",
    "Latency under load",
    "/json",
    "/dashboard",
    "Each pass's p99, with its interval within the pass",
    "Threads and CPU",
    "GC",
    "Virtual-thread pinning",
    "The latest pinning audit",
    "Repeats",
]


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory) -> tuple[Path, str]:
    """The fixture run and its report, rendered once for the tests that only read it: as make bench leaves a run, with the newest
    pinning audit beside it and k6's dashboard exported for two passes (one on this host, one over two load generators' segments).
    """
    import shutil

    from conftest import FIXTURE, FIXTURES

    results = tmp_path_factory.mktemp("results")
    folder = results / FIXTURE.name
    shutil.copytree(FIXTURE, folder)
    shutil.copytree(FIXTURES / "audit", results / "20261122-061512-pinning")
    # A run whose /json rate was calibrated, as the harness records it: a probe that sustained the rate, and one that failed.
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["calibration"] = {
        "targetPerSecond": 2000,
        "floorPerSecond": 500,
        "ratePerSecond": 2000,
        "unsustained": [],
        "probes": [
            {
                "server": "jetty-virtual",
                "ratePerSecond": 2000,
                "sustained": True,
                "droppedIterations": 0,
                "achievedPerSecond": 1999.5,
                "jsonP99Ms": 3.25,
            },
            {
                "server": "ktor-coroutine",
                "ratePerSecond": 2000,
                "sustained": False,
                "droppedIterations": None,
                "achievedPerSecond": None,
                "jsonP99Ms": None,
                "failure": "exited with 137",
            },
        ],
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "jetty-virtual" / "k6-dashboard.html").write_text("<html></html>")
    for segment in ("0", "1"):
        (folder / "jetty-platform" / "k6-segments" / segment).mkdir(parents=True)
        (folder / "jetty-platform" / "k6-segments" / segment / "k6-dashboard.html").write_text("<html></html>")
    report = render.render(folder)
    assert report == folder / "report.html"
    return folder, report.read_text()


def test_a_calibrated_run_shows_each_probe_that_chose_its_json_rate(whole_run):
    _, html = whole_run

    probes = re.sub(r"<[^>]+>", " ", html[html.index("Calibration probes, which chose the /json rate") :])
    assert "exited with 137" in probes and "1,999.50" in probes


def test_a_whole_run_renders_every_section_with_embedded_plots(whole_run):
    _, html = whole_run

    for section in SECTIONS:
        assert f">{section}<" in html, section
    assert html.count("data:image/png;base64,") >= 10
    assert offline.external_loads(html) == [], "the report loads nothing from the network"
    # A cell that raised would have stopped the render; one that wrote to stderr shows here.
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    # The fixture is whole but for the harness's marks: three of its passes ran while the host was not quiet, and the report says
    # so of each of them, and of no other.
    for name in ("jetty-virtual", "jetty-coroutine", "jetty-platform"):
        assert f"{name}: the host was not quiet" in html, name
    assert "ktor-coroutine: the host was not quiet" not in html
    # A format-1 pass has memory.csv, histogram.csv and cpu.csv: their sections show figures, not an absence.
    assert "No memory split to show" not in html and "No classes to show" not in html and "No CPU to show" not in html
    # The manifest's passOrder and passSeed.
    assert "ktor-coroutine → jetty-virtual → jetty-coroutine → jetty-platform (shuffled with seed -1730690116641681920)" in html


# What a socket holds, by hand: memory.csv's live heap, NMT's categories but the heap, and the kernel's memory and TCP buffers.
HELD_PARTS = ("live_heap", "nmt_thread", "nmt_gc", "nmt_class", "nmt_code", "nmt_other", "nmt_rest", "kernel", "kernel_tcp")


def _held_per_socket_kib(run_folder, name: str) -> float:
    """By hand from the pass's memory.csv: what a socket holds at 0, 150 and 300 sockets (startup and the two steps' ends); least
    squares over three evenly spaced x has slope (y3 - y1) / (x3 - x1)."""
    import csv

    held = {0: 0.0, 300: 0.0}
    with open(run_folder / name / "memory.csv") as f:
        for r in csv.DictReader(f):
            if r["component"] in HELD_PARTS and int(r["sockets_open"]) in held:
                held[int(r["sockets_open"])] += float(r["bytes"])
    return (held[300] - held[0]) / 300 / 1024


def test_the_report_opens_with_one_sentence_on_what_the_model_and_the_engine_cost(whole_run):
    run_folder, html = whole_run

    opening = html[html.index("In one sentence.") : html.index(">Who wins what<")]
    # What an idle socket holds leads. From memory.csv: jetty-platform 108.3 KiB, jetty-coroutine -30.5 KiB (this smoke run's
    # startup snapshot held more than its steps' did), ktor-coroutine 69.6 KiB. The model's largest difference on jetty is
    # platform less coroutine, 139 KiB; the engine's, coroutines on ktor-netty less on jetty, 100 KiB.
    platform, jetty_coroutine, ktor = (_held_per_socket_kib(run_folder, n) for n in ("jetty-platform", "jetty-coroutine", "ktor-coroutine"))
    assert (round(platform, 1), round(jetty_coroutine, 1), round(ktor, 1)) == (108.3, -30.5, 69.6)
    assert (round(platform - jetty_coroutine), round(ktor - jetty_coroutine)) == (139, 100)
    assert "In memory an idle socket holds, the model costs up to 139 KiB: on jetty, platform threads 108 against coroutines -30.50 KiB" in opening
    assert "the engine costs 100 KiB: coroutines on ktor-netty 69.59 against on jetty -30.50 KiB" in opening
    assert opening.count("one pass each: no interval, so no conclusion") >= 2


def test_without_a_floor_folder_the_decomposition_says_to_run_make_floor_and_the_claims_say_why_ktor_is_not_compared(whole_run):
    _, html = whole_run

    decomposition = html[html.index(">Per-socket decomposition<") : html.index(">Claims checked<")]
    assert "run <code>make floor</code>" in decomposition
    assert "no floor: run make floor" in decomposition
    claims = html[html.index(">Claims checked<") : html.index(">The run<")]
    assert "cannot be checked: Ktor has no virtual-thread mode" in claims
    assert "cannot be reproduced" in claims


def test_a_partial_run_renders_a_report_that_says_what_is_missing(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    next(o for o in manifest["outcomes"] if o["server"] == "jetty-platform").update(status="failed", reason="exited with 137 (SIGKILL) in phase json")
    (run_folder / "manifest.json").write_text(json.dumps(manifest))
    (run_folder / "jetty-virtual" / "k6-summary.json").unlink()
    (run_folder / "ktor-coroutine" / "jfr-series.csv").unlink()
    proc = run_folder / "jetty-platform" / "proc.csv"
    proc.write_text(proc.read_text()[:-7])

    html = render.render(run_folder).read_text()

    assert "Traceback" not in html
    assert "This run is not whole" in html
    assert "jetty-platform: failed: exited with 137 (SIGKILL) in phase json" in html
    assert "jetty-virtual: k6-summary.json is missing" in html
    assert "ktor-coroutine: jfr-series.csv is missing" in html
    assert "jetty-platform: proc.csv has 1 cut-off line(s), left out" in html
    for section in SECTIONS:
        assert f">{section}<" in html, section


def test_a_folder_that_is_not_a_run_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert render.main([str(tmp_path)]) == 2

    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no manifest.json" in err


def test_usage_is_one_line(capsys):
    assert render.main([]) == 2
    assert "usage: make report RUN=" in capsys.readouterr().err


def test_an_option_without_its_folder_is_one_line_and_exit_code_2(capsys):
    # It raised IndexError once: `--experiment` alone.
    for argv in (["--experiment"], ["--compare", "results/a"], ["results/a", "--compare", "results/a", "results/b"]):
        assert render.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("make report: ") and "usage: make report RUN=" in err, argv


def test_runs_given_with_also_are_pooled_as_repeats(run_folder, tmp_path):
    import shutil

    second = tmp_path / "second-run"
    shutil.copytree(run_folder, second)

    html = render.render(run_folder, also=[second]).read_text()

    # Each server twice: the copy is the same run, so each median's range is nil. /json achieved: each pass's 401 requests k6
    # tagged endpoint=json, none failed, over the profile's 4 steady seconds, 100.25/s, shown as 100.
    wins = html[html.index(">Who wins what<") : html.index(">The engine \u00d7 model grid<")]
    rows = [row for row in wins.split("</tr>") if "/json achieved (req/s)" in row]  # the winners' row, then the values' row
    assert [row.count("100 [100, 100] over 2 passes") for row in rows] == [0, 4]
    assert f"{second.name}</td>" in html, "the pooled run's passes are listed among the repeats"


def test_the_newest_pinning_audit_beside_the_run_is_in_its_report(whole_run):
    _, html = whole_run

    assert "From <code>20261122-061512-pinning</code>" in html
    assert "pinned 8x, 367 ms" in html


def test_with_a_floor_folder_beside_the_run_each_servers_memory_per_socket_is_split_and_the_per_task_claims_checked(run_folder):
    import json
    import shutil
    from pathlib import Path

    import pandas as pd

    from labanalysis.floor import floor

    fixture = Path(__file__).parent / "fixtures" / "floor"
    beside = run_folder.parent / "20261122-050000-floor"
    shutil.copytree(fixture, beside)
    # The run's sockets are cold (its profile says nothing else), so its floor must have parked tasks cold: the fixture's JVMs
    # again as cold ones, figure for figure.
    steps = pd.read_csv(beside / "floor.csv").assign(warmth="warm")
    pd.concat([steps, steps.assign(warmth="cold")]).to_csv(beside / "floor.csv", index=False)
    manifest = json.loads((beside / "manifest.json").read_text())
    manifest["settings"]["warmths"] = ["cold", "warm"]
    (beside / "manifest.json").write_text(json.dumps(manifest))
    per_task = floor.per_task(fixture).set_index(["jdk", "model", "depth", "measure"])["median"]

    html = render.render(run_folder).read_text()

    decomposition = _section(html, "Per-socket decomposition", "Memory split into its parts")
    assert "The floor is <code>20261122-050000-floor</code>" in decomposition
    assert decomposition.count("data:image/png;base64,") == 1
    # The fixture run is on JDK 25: a coroutine server's RSS per socket is set against what a coroutine parked there holds.
    held = per_task[25, "coroutine", 0, "live heap"] + per_task[25, "coroutine", 0, "NMT thread committed"]
    assert f"{held:,.0f}" in decomposition
    claims = html[html.index(">Claims checked<") : html.index(">The run<")]
    assert claims.count("data:image/png;base64,") == 1
    # A platform thread's committed stack against the seed's ~1 MB.
    assert f"no: {per_task[25, 'platform', 0, 'NMT stack committed'] / (1 << 20):.2g}x the claim" in claims
    assert "parked 20 frames deep" in claims


# ---- a run of repeated passes: two servers x three passes (make_repeats_run.py) -----------------------


@pytest.fixture(scope="module")
def repeats_report(tmp_path_factory) -> str:
    """The repeats-run fixture's report, rendered once for the tests that read it."""
    import shutil

    from conftest import REPEATS

    folder = tmp_path_factory.mktemp("runs") / "20261123-100000-fixture"
    shutil.copytree(REPEATS, folder)
    return render.render(folder).read_text()


def _section(html: str, title: str, next_title: str) -> str:
    """From the heading `title` to the heading `next_title` (a heading, not a link to it such as the verdict's)."""
    return html[html.index(_heading(title)) : html.index(_heading(next_title))]


def _heading(title: str) -> str:
    return f'>{title}<a class="anchor-link"'


def test_a_run_with_repeats_renders_every_section_without_a_failure(repeats_report):
    for section in SECTIONS:
        assert f">{section}<" in repeats_report, section
    assert "Traceback" not in repeats_report and 'data-mime-type="application/vnd.jupyter.stderr"' not in repeats_report


def test_the_headline_is_the_median_across_passes_and_a_winner_is_ahead_in_every_round(repeats_report):
    wins = _section(repeats_report, "Who wins what", "The engine \u00d7 model grid")

    assert "6 [5, 7] over 3 passes" in wins  # vthread's /json p99 in its three passes: 5, 6 and 7 ms
    assert "ahead in every round" in wins and "changed places in some round: not resolved" in wins


def test_the_memory_parts_are_stacked_per_socket_with_rss_and_pss_beside_them_and_the_50k_line_against_the_heap(repeats_report):
    parts = _section(repeats_report, "Memory split into its parts", "The largest classes per socket")
    classes = _section(repeats_report, "The largest classes per socket", "At 50,000 sockets")
    at_50k = _section(repeats_report, "At 50,000 sockets", "CPU of every process")

    assert "not a sum of its parts" in parts and parts.count("data:image/png;base64,") == 2
    assert "2,000 [1,900, 2,100] over 3 passes" in parts  # vthread's live heap per socket
    assert "20,000 [19,800, 20,480] over 3 passes" in parts  # platform's NMT thread memory per socket
    assert "jdk.internal.vm.StackChunk" in classes and "java.lang.String" not in classes
    assert "fits: 85% of the 160 MiB heap at 50,000 sockets" in at_50k
    assert "exceeds the 160 MiB heap: the live heap would fill it at about 41,943 sockets" in at_50k


def test_the_cpu_of_every_process_is_shown_and_the_pass_whose_load_generator_was_the_bottleneck_is_marked_twice(repeats_report):
    section = _section(repeats_report, "CPU of every process", "Claims checked")
    opening = repeats_report[: repeats_report.index(">Who wins what<")]

    assert section.count("data:image/png;base64,") == 1
    assert "load generator was the bottleneck" in section
    assert "20261123-100000-fixture/platform-r2: the load generator was the bottleneck" in opening
    assert "this pass's latency figures measure the load generator" in opening


def test_the_run_facts_give_the_pass_order_its_seed_the_cpu_split_and_the_kernel_memory_source(repeats_report):
    facts = _section(repeats_report, "The run", "Memory per idle connection (/proc, per pass)")

    assert "vthread → platform → platform-r2 → vthread-r2 → vthread-r3 → platform-r3 (shuffled with seed 7)" in facts
    assert "server on CPU 1 (its JVM sized to 1); k6, stub and harness on CPU 0" in facts
    assert "the server's own cgroup (v1)" in facts


def test_runs_that_do_not_share_their_jvm_flags_are_refused_in_one_line_and_nothing_is_written(repeats_folder, tmp_path, capsys):
    import shutil

    other = tmp_path / "20261123-120000-fixture"
    shutil.copytree(repeats_folder, other)
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["jvmFlags"] = [f.replace("-Xmx160m", "-Xmx512m") for f in manifest["jvmFlags"]]
    (other / "manifest.json").write_text(json.dumps(manifest))

    assert render.main([str(repeats_folder), str(other)]) == 2

    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "20261123-120000-fixture is not a repeat of" in err
    assert "the JVM flags differ (-Xmx160m against -Xmx512m)" in err
    assert f"Compare the two instead: make compare A={repeats_folder} B={other}" in err
    assert not (repeats_folder / "report.html").exists() and not (repeats_folder / render.INPUTS).exists()


def test_each_passs_k6_dashboard_is_linked_relative_to_the_report(whole_run):
    _, html = whole_run

    the_run = _section(html, "The run", "Memory per idle connection (/proc, per pass)")
    assert 'href="jetty-virtual/k6-dashboard.html">jetty-virtual</a>' in the_run
    assert 'href="jetty-platform/k6-segments/0/k6-dashboard.html">jetty-platform/k6-segments/0</a>' in the_run
    assert "jetty-platform/k6-segments/1/k6-dashboard.html" in the_run
    assert "ktor-coroutine/k6-dashboard.html" not in the_run, "a pass without the export has no link"


def test_a_run_whose_every_pass_failed_before_its_first_socket_renders_whole(run_folder):
    # As bench-vps left one whose k6 never started: every pass failed in startup, with /proc samples of startup only.
    manifest = json.loads((run_folder / "manifest.json").read_text())
    assert manifest["outcomes"] and list(run_folder.glob("*/proc.csv")), "the fixture holds passes to fail"
    for outcome in manifest["outcomes"]:
        outcome.update(status="failed", reason="k6 did not start its timeline within 60 s; see k6.log", phaseAtEnd="startup")
    (run_folder / "manifest.json").write_text(json.dumps(manifest))
    for proc in run_folder.glob("*/proc.csv"):
        lines = proc.read_text().splitlines()
        proc.write_text("\n".join([lines[0], *[line for line in lines[1:] if ",startup," in line]]) + "\n")

    html = render.render(run_folder).read_text()

    assert "Traceback" not in html
    assert "k6 did not start its timeline within 60 s" in html
