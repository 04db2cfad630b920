"""Autobahn's section 9 timed on each arm (labanalysis.autobahn.autobahnperf), on a real by-hand run (fixtures/autobahn/README.md): every
figure is recomputed here from wstest's own index.json files by plain means, so the module is held to what wstest wrote."""

import json
import statistics
from pathlib import Path

import pandas as pd
import pytest

from labanalysis.autobahn import autobahnperf
from labanalysis.folder import autobahnfolder, catalogue
from labanalysis.folder.declared import read_as
from labanalysis.folder.experiment_manifests import AutobahnManifest
from labanalysis.report import offline, render

FOLDER = "20261129-103400-autobahn"
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "autobahn" / FOLDER
# What servers.json says Ktor's close-linger holds a WebSocket open after its last frame: wstest's clock runs until the close.
CLOSE_LINGER_MS = 100


@pytest.fixture
def folder(fixture_copy) -> Path:
    return fixture_copy(f"autobahn/{FOLDER}", FOLDER)


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _durations(folder: Path) -> dict[tuple[str, int], dict[str, int]]:
    """{(arm, pass): {case: duration ms}}, straight from each pass's index.json, its agent the arm."""
    found = {}
    for planned in _manifest(folder)["passOrder"]:
        index = json.loads((folder / planned["folder"] / "index.json").read_text())
        found[(planned["arm"], planned["pass"])] = {case: result["duration"] for case, result in index[planned["arm"]].items()}
    return found


def _arms_by_catalogue(folder: Path) -> list[str]:
    return [name for name in catalogue.names() if name in {a["name"] for a in _manifest(folder)["arms"]}]


def test_every_case_of_every_pass_is_a_row_as_wstest_timed_it(folder):
    run = autobahnfolder.load(folder)
    raw = _durations(folder)

    assert run.problems == []
    assert list(run.cases.columns) == autobahnfolder.CASE_COLUMNS
    assert len(run.cases) == sum(len(cases) for cases in raw.values())
    row = run.cases[(run.cases["arm"] == "jetty-virtual") & (run.cases["pass"] == 2) & (run.cases["case"] == "9.4.7")].iloc[0]
    assert row["duration_ms"] == raw[("jetty-virtual", 2)]["9.4.7"]
    assert row["section"] == "9.4" and row["behavior"] == "OK" and row["behavior_close"] == "OK"


def test_a_pass_total_is_the_sum_of_its_cases_durations(folder):
    totals = autobahnperf.totals(autobahnfolder.load(folder))

    expected = {key: sum(cases.values()) for key, cases in _durations(folder).items()}
    assert {(arm, pass_number): total for arm, pass_number, total in totals[["arm", "pass", "total_ms"]].itertuples(index=False)} == expected
    assert (totals["cases"] == 54).all() and (totals["ok"] == 54).all() and (totals["not_ok"] == 0).all()


def test_the_summary_is_each_arms_median_total_with_the_range_over_passes_in_the_catalogues_order(folder):
    summary = autobahnperf.summary(autobahnfolder.load(folder))
    raw = _durations(folder)

    assert summary["arm"].tolist() == _arms_by_catalogue(folder)
    for row in summary.itertuples():
        totals = [sum(cases.values()) for (arm, _), cases in raw.items() if arm == row.arm]
        assert (row.median_ms, row.low_ms, row.high_ms, row.passes) == (statistics.median(totals), min(totals), max(totals), 3)
        assert row.label == catalogue.label(row.server)


def test_a_section_is_the_median_across_passes_of_its_cases_summed(folder):
    sections = autobahnperf.by_section(autobahnfolder.load(folder))
    raw = _durations(folder)

    assert sorted(sections["section"].unique()) == [f"9.{n}" for n in range(1, 9)]
    for row in sections.itertuples():
        sums = [sum(d for case, d in cases.items() if case.startswith(row.section + ".")) for (arm, _), cases in raw.items() if arm == row.arm]
        assert row.median_ms == statistics.median(sums)


def test_the_excess_is_the_median_over_cases_of_the_difference_in_the_same_pass(folder):
    excess = autobahnperf.excess(autobahnfolder.load(folder), "ktor-coroutine", "jetty-virtual")
    raw = _durations(folder)

    assert excess["pass"].tolist() == [1, 2, 3]
    for pass_number, excess_ms, cases in excess[["pass", "excess_ms", "cases"]].itertuples(index=False):
        mine, theirs = raw[("ktor-coroutine", pass_number)], raw[("jetty-virtual", pass_number)]
        assert excess_ms == statistics.median(mine[case] - theirs[case] for case in mine)
        assert cases == len(mine)


def test_the_ktor_servers_extra_time_is_its_close_linger_in_every_case(folder):
    run = autobahnfolder.load(folder)

    # No Ktor case ends before its linger has run out, and against every Jetty arm the excess across passes is at least the linger.
    assert run.cases.loc[run.cases["arm"] == "ktor-coroutine", "duration_ms"].min() >= CLOSE_LINGER_MS
    for reference in [a for a in _arms_by_catalogue(folder) if catalogue.engine_in(run.manifest.catalogue, a) == "jetty"]:
        assert statistics.median(autobahnperf.excess(run, "ktor-coroutine", reference)["excess_ms"]) >= CLOSE_LINGER_MS, reference


def test_the_reference_is_the_arm_with_the_lowest_median_total_of_those_with_every_change(folder):
    manifest = _manifest(folder)
    # The fixture's arms all run with every change; say the fastest one left one out, and it is passed over.
    raw = _durations(folder)
    medians = {arm: statistics.median(sum(c.values()) for (a, _), c in raw.items() if a == arm) for arm in _arms_by_catalogue(folder)}
    first, second = sorted(medians, key=medians.get)[:2]
    assert autobahnperf.fastest(autobahnfolder.load(folder)) == first
    for arm in manifest["arms"]:
        if arm["name"] == first:
            arm["asShipped"] = ["close-linger"]
    (folder / "manifest.json").write_text(json.dumps(manifest))

    assert autobahnperf.fastest(autobahnfolder.load(folder)) == second


def test_verdicts_count_every_case_of_every_pass_by_autobahns_behavior(folder):
    verdicts = autobahnperf.verdicts(autobahnfolder.load(folder))

    raw = {}
    for planned in _manifest(folder)["passOrder"]:
        index = json.loads((folder / planned["folder"] / "index.json").read_text())[planned["arm"]]
        for result in index.values():
            raw.setdefault(planned["arm"], {}).setdefault(result["behavior"], 0)
            raw[planned["arm"]][result["behavior"]] += 1
    run = autobahnfolder.load(folder)
    expected = {autobahnperf.label(run, arm): counts for arm, counts in raw.items()}
    assert {r["arm"]: {b: n for b, n in r.items() if b != "arm"} for r in verdicts.to_dict("records")} == expected


def _run_of(**recorded) -> autobahnfolder.AutobahnRun:
    """A run of no cases whose manifest is the fixture's, but for the properties given, each as the manifest records it."""
    manifest = json.loads((FIXTURE / "manifest.json").read_text()) | recorded
    return autobahnfolder.AutobahnRun(Path("."), read_as(AutobahnManifest, manifest, "a manifest"), pd.DataFrame(columns=autobahnfolder.CASE_COLUMNS))


def test_an_arm_without_some_of_the_labs_changes_says_so_and_keeps_its_servers_colour():
    run = _run_of(arms=[{"name": "ktor-plain", "server": "ktor-coroutine", "asShipped": ["close-linger"]}])

    assert autobahnperf.label(run, "ktor-plain") == f"{catalogue.label('ktor-coroutine')} without close-linger"
    assert autobahnperf.colour(run, "ktor-plain") == catalogue.colour("ktor-coroutine")


def test_an_arm_without_every_change_of_its_engine_is_the_engine_as_shipped():
    changes = [{"name": n, "kind": "patch", "what": "", "why": ""} for n in ("close-linger", "raw-session")]
    run = _run_of(
        arms=[{"name": "ktor-shipped", "server": "ktor-coroutine", "asShipped": ["raw-session", "close-linger"]}],
        catalogue=[{"name": "ktor-coroutine", "engine": "ktor-netty", "model": "coroutine"}],
        engines={"ktor-netty": {"label": "Ktor", "changes": changes}},
    )

    assert autobahnperf.label(run, "ktor-shipped") == f"{catalogue.label('ktor-coroutine')} as shipped"


def test_a_failed_pass_is_left_out_and_its_reason_said(folder):
    manifest = _manifest(folder)
    failed = manifest["outcomes"][0]
    failed.update(status="failed", reason="the server did not answer /health in 10 s")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / failed["folder"] / "index.json").unlink()

    run = autobahnfolder.load(folder)

    assert len(run.problems) == 1 and "did not answer /health" in run.problems[0] and failed["folder"] in run.problems[0]
    assert autobahnperf.summary(run).set_index("arm").loc[failed["arm"], "passes"] == 2


def test_a_pass_that_ran_fewer_cases_is_not_compared(folder):
    first = _manifest(folder)["passOrder"][0]
    index_file = folder / first["folder"] / "index.json"
    index = json.loads(index_file.read_text())
    index[first["arm"]] = {case: result for case, result in index[first["arm"]].items() if not case.startswith("9.8.")}
    index_file.write_text(json.dumps(index))

    run = autobahnfolder.load(folder)

    assert run.problems == [f"{first['arm']}, pass {first['pass']} ran 48 of 54 cases; its totals are left out"]
    assert autobahnperf.summary(run).set_index("arm").loc[first["arm"], "passes"] == 2


def test_a_folder_without_a_manifest_is_refused_in_one_line(tmp_path):
    with pytest.raises(autobahnfolder.AutobahnFolderError, match="not a `make autobahn-perf` folder") as refused:
        autobahnfolder.load(tmp_path)
    assert "\n" not in str(refused.value)


def test_a_folder_of_another_kind_is_refused_in_one_line(fixture_copy):
    with pytest.raises(autobahnfolder.AutobahnFolderError, match="not a `make autobahn-perf` folder") as refused:
        autobahnfolder.load(fixture_copy("sweep", "20261129-080728-sweep"))
    assert "\n" not in str(refused.value)


def test_a_folder_of_another_run_folder_format_is_refused_in_one_line_naming_its_commit(folder):
    (folder / "manifest.json").write_text(json.dumps({**_manifest(folder), "runFolderFormat": 99}))

    with pytest.raises(autobahnfolder.AutobahnFolderError, match=r"is in run-folder format 99, .*checkout of b5936d6") as refused:
        autobahnfolder.load(folder)
    assert "\n" not in str(refused.value)


def test_the_facts_say_how_the_passes_were_ordered_and_what_each_arm_runs_without(folder):
    facts = autobahnperf.facts(autobahnfolder.load(folder))
    assert facts["passes, in the order they ran"].startswith("ktor-coroutine 1 → jetty-virtual 1")
    assert facts["passes, in the order they ran"].endswith("(shuffled with seed 0)")
    assert facts["wstest"] == "Autobahn 0.10.9, AutobahnTestSuite 25.10.1"
    assert "close-linger (patch" in facts["what the lab changed in each engine"]

    manifest = _manifest(folder)
    manifest["passSeed"] = 12345
    manifest["arms"][0]["asShipped"] = ["close-linger"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    facts = autobahnperf.facts(autobahnfolder.load(folder))
    assert facts["passes, in the order they ran"].endswith("(shuffled with seed 12345)")
    assert "ktor-coroutine: ktor-coroutine, without close-linger" in facts["arms"]


def test_an_autobahn_folder_renders_its_section_with_its_plot_and_nothing_from_the_network(folder):
    html = render.render_experiment(folder).read_text()

    assert (folder / "report.html").is_file()
    assert "WebSocket echo under Autobahn" in html and "No Autobahn timing here" not in html
    assert "What each arm adds to every case" in html and catalogue.label("jetty-virtual") in html
    assert html.count("data:image/png;base64,") >= 1
    assert "Traceback" not in html and 'data-mime-type="application/vnd.jupyter.stderr"' not in html
    assert offline.external_loads(html) == []


def test_render_takes_an_autobahn_folder_as_an_experiment_kind():
    assert any(kind.parameter == "AUTOBAHN" and kind.suffix == autobahnfolder.AUTOBAHN_SUFFIX for kind in render.EXPERIMENT_KINDS)


def test_a_run_whose_every_pass_failed_has_no_figures_and_says_why_in_a_problem_each(folder):
    manifest = _manifest(folder)
    for outcome in manifest["outcomes"]:
        outcome.update(status="failed", reason="wstest exited 1")
    (folder / "manifest.json").write_text(json.dumps(manifest))

    run = autobahnfolder.load(folder)

    assert len(run.problems) == len(manifest["passOrder"])
    assert autobahnperf.summary(run).empty and autobahnperf.by_section(run).empty and autobahnperf.verdicts(run).empty
    assert autobahnperf.fastest(run) is None
