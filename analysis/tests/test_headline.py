"""`make headline`: a run's headline tables as Markdown, the report's own figures written as text and traced to their run."""

import pandas as pd

from labanalysis import markdown
from labanalysis.autobahn import autobahnperf
from labanalysis.curve import curve, curve_tables
from labanalysis.floor import floor
from labanalysis.folder import autobahnfolder, catalogue, run, sweepfolder
from labanalysis.folder.provenance import Provenance
from labanalysis.report import headline
from labanalysis.sweep import sweep

CURVE = ("curve-run", "20261127-002232-smoke")


def _rows(markdown: str, title: str) -> list[list[str]]:
    """The body rows of the table under `### title`, each as its cells."""
    section = markdown.split(f"### {title}\n\n", 1)[1].split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in section.splitlines()[2:]]


def _printed_and_traced(folder, made: Provenance, capsys) -> str:
    """What `make headline` prints for an experiment's folder, after checking that it succeeded and that its first line names the
    folder, and the commit and command its manifest records."""
    assert headline.main([str(folder)]) == 0
    text = capsys.readouterr().out
    first = text.splitlines()[0]
    assert first.startswith(f"From `{folder.name}` ") and made.command in first and made.git_commit[:7] in first
    return text


def test_a_table_is_a_header_a_rule_and_a_row_each_with_a_pipe_in_a_cell_escaped_and_nan_left_blank():
    frame = pd.DataFrame({"server": ["a|b", "c"], "p99 (ms)": [1.5, float("nan")]})

    assert markdown.markdown(frame).splitlines() == ["| server | p99 (ms) |", "|---|---|", "| a\\|b | 1.5 |", "| c |  |"]


def test_the_tables_name_the_folder_the_commit_and_the_command_that_made_them(fixture_copy):
    ran = run.load_run(fixture_copy(*CURVE))

    text = headline.of_run([ran])

    first = text.splitlines()[0]
    assert first.startswith(f"From `{ran.folder.name}` ")
    made = ran.manifest.provenance
    assert made.git_commit[:7] in first
    assert made.command in first


def test_a_curves_highest_sustained_rate_is_the_reports_own_cell_for_cell(fixture_copy):
    ran = run.load_run(fixture_copy(*CURVE))
    expected = curve_tables.summary(curve.per_step([ran]))

    rows = _rows(headline.of_run([ran]), "Highest sustained rate")

    assert rows == [[("" if v is None else str(v)) for v in r] for r in expected.itertuples(index=False)]
    assert "/json: p99 on the wire (ms), median [lowest, highest] across passes" in headline.of_run([ran])


def test_no_folder_or_a_folder_that_is_no_run_is_refused_in_one_line(tmp_path, capsys):
    for argv in ([], [str(tmp_path)], ["--compare", str(tmp_path), str(tmp_path)]):
        assert headline.main(argv) == 2
        said = capsys.readouterr().err.strip().splitlines()
        assert len(said) == 1 and said[0].startswith("make headline: "), argv


def test_the_picture_is_the_reports_curve_saved_as_a_png(fixture_copy, tmp_path):
    ran = run.load_run(fixture_copy(*CURVE))
    png = tmp_path / "report.png"

    headline.picture([ran], str(png))

    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_sweeps_headline_is_its_reports_tables_traced_to_its_folder_and_command(fixture_copy, capsys):
    folder = fixture_copy("sweep", "20261129-080728-sweep")
    ran = sweepfolder.load(folder)

    text = _printed_and_traced(folder, ran.manifest.provenance, capsys)
    held = _rows(text, "How far each server held C/D, and why it stopped")
    assert [r[0] for r in held] == [catalogue.label(s) for s in sweep.capacity(ran)["server"]]
    assert "### Server CPU per request (µs): the slope over the steps each server held" in text


def test_a_floors_headline_is_its_reports_tables_traced_to_its_folder_and_command(fixture_copy, capsys):
    folder = fixture_copy("floor", "20261122-194038-floor")
    ran = floor.load(folder)

    text = _printed_and_traced(folder, ran.manifest.provenance, capsys)
    rows = _rows(text, "Memory per parked task (KiB), median [lowest, highest] over the repeats")
    expected = floor.table(ran).reset_index()
    assert rows == [[str(v) for v in r] for r in expected.itertuples(index=False)]
    # The fixture parked its tasks warm only: there is no cold to set beside them.
    assert "Cold and warm" not in text


def test_an_autobahn_runs_headline_is_its_reports_tables_traced_to_its_folder_and_command(fixture_copy, capsys):
    folder = fixture_copy("autobahn/20261129-103400-autobahn", "20261129-103400-autobahn")
    ran = autobahnfolder.load(folder)

    text = _printed_and_traced(folder, ran.manifest.provenance, capsys)
    rows = _rows(text, "Autobahn's section 9: each arm's cases' durations, summed")
    assert rows == [[str(v) for v in r] for r in autobahnperf.summary_table(ran).itertuples(index=False)]


def test_a_floor_without_its_csv_says_so_and_shows_no_empty_table(fixture_copy, capsys):
    folder = fixture_copy("floor", "20261122-194038-floor")
    (folder / "floor.csv").unlink()

    assert headline.main([str(folder)]) == 0
    text = capsys.readouterr().out

    assert "floor.csv is missing" in text.splitlines()[2]
    assert "###" not in text


def test_a_folder_named_for_a_floor_or_an_autobahn_run_that_is_none_is_refused_in_one_line(tmp_path, capsys):
    for name in ("20261207-000000-floor", "20261207-000000-autobahn"):
        (tmp_path / name).mkdir()
        assert headline.main([str(tmp_path / name)]) == 2
        said = capsys.readouterr().err.strip().splitlines()
        assert len(said) == 1 and said[0].startswith("make headline: ") and name in said[0], name
