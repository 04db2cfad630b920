"""The report: the notebook run headless on a run folder, exported to one self-contained report.html."""

import json

from labanalysis import render

SECTIONS = [
    "Who wins what",
    "The engine \u00d7 model grid",
    "Model effect",
    "Engine effect",
    "Per-socket decomposition",
    "Claims checked",
    "The run",
    "Memory per idle connection",
    "Latency under load",
    "/json",
    "/dashboard",
    "Threads and CPU",
    "GC",
    "Virtual-thread pinning",
    "The latest pinning audit",
    "Repeats",
]


def test_a_whole_run_renders_every_section_with_embedded_plots(run_folder):
    report = render.render(run_folder)

    html = report.read_text()
    assert report == run_folder / "report.html"
    for section in SECTIONS:
        assert f">{section}<" in html, section
    assert html.count("data:image/png;base64,") >= 10
    # A cell that raised would have stopped the render; one that wrote to stderr shows here.
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert "every file of the run was read whole" in html


def test_the_report_opens_with_one_sentence_on_what_the_model_and_the_engine_cost(run_folder):
    html = render.render(run_folder).read_text()

    opening = html[html.index("In one sentence.") : html.index(">Who wins what<")]
    # The fixture's Jetty row: platform threads 115 KiB per idle socket against virtual threads' 36.6, one pass each.
    assert "the model costs up to 78.2 KiB: on jetty, platform threads 115 against virtual threads 36.6 KiB" in opening
    assert "one pass each: no interval, so no conclusion" in opening
    assert "the engine's cost is not measured: no model ran on two engines in these runs (coroutines on ktor-netty only;" in opening


def test_without_a_floor_folder_the_decomposition_says_to_run_make_floor_and_the_claims_say_why_ktor_is_not_compared(run_folder):
    html = render.render(run_folder).read_text()

    decomposition = html[html.index(">Per-socket decomposition<") : html.index(">Claims checked<")]
    assert "run <code>make floor</code>" in decomposition
    assert "no floor: run make floor" in decomposition
    claims = html[html.index(">Claims checked<") : html.index(">The run<")]
    assert "cannot be checked: Ktor has no virtual-thread mode" in claims
    assert "cannot be reproduced" in claims


def test_a_partial_run_renders_a_report_that_says_what_is_missing(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    manifest["outcomes"][2].update(status="failed", reason="exited with 137 (SIGKILL) in phase json")
    (run_folder / "manifest.json").write_text(json.dumps(manifest))
    (run_folder / "vthread" / "k6-summary.json").unlink()
    (run_folder / "coroutine" / "jfr-series.csv").unlink()
    proc = run_folder / "platform" / "proc.csv"
    proc.write_text(proc.read_text()[:-7])

    html = render.render(run_folder).read_text()

    assert "Traceback" not in html
    assert "This run is not whole" in html
    assert "platform: failed: exited with 137 (SIGKILL) in phase json" in html
    assert "vthread: k6-summary.json is missing" in html
    assert "coroutine: jfr-series.csv is missing" in html
    assert "platform: proc.csv has 1 cut-off line(s), left out" in html
    for section in SECTIONS:
        assert f">{section}<" in html, section


def test_a_folder_that_is_not_a_run_is_one_line_and_exit_code_2(tmp_path, capsys):
    assert render.main([str(tmp_path)]) == 2

    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no manifest.json" in err


def test_usage_is_one_line(capsys):
    assert render.main([]) == 2
    assert "usage: make report RUN=" in capsys.readouterr().err


def test_runs_given_with_also_are_pooled_as_repeats(run_folder, tmp_path):
    import shutil

    second = tmp_path / "second-run"
    shutil.copytree(run_folder, second)

    html = render.render(run_folder, also=[second]).read_text()

    # Each server twice: the copy is the same run, so each median's range is nil.
    assert html.count("100.0 (100.0 to 100.0)") == 3


def test_the_newest_pinning_audit_beside_the_run_is_in_its_report(run_folder):
    import shutil
    from pathlib import Path

    shutil.copytree(Path(__file__).parent / "fixtures" / "audit", run_folder.parent / "20261122-061512-pinning")

    html = render.render(run_folder).read_text()

    assert "From <code>20261122-061512-pinning</code>" in html
    assert "pinned 8x, 367 ms" in html


def test_with_a_floor_folder_beside_the_run_each_servers_memory_per_socket_is_split_and_the_per_task_claims_checked(run_folder):
    import shutil
    from pathlib import Path

    from labanalysis import floor

    fixture = Path(__file__).parent / "fixtures" / "floor"
    shutil.copytree(fixture, run_folder.parent / "20261122-050000-floor")
    per_task = floor.per_task(fixture).set_index(["jdk", "model", "depth", "measure"])["median"]

    html = render.render(run_folder).read_text()

    decomposition = html[html.index(">Per-socket decomposition<") : html.index(">Claims checked<")]
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
