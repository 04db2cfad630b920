"""A figure README or FINDINGS publishes can be made again: it is pasted from a committed headline (docs/results/<run>.md, written by
`make headline` from a run in the format this analysis reads), inside a block that names it, and no measured figure (a number with a
unit of memory, CPU time a request or rate, or a factor) stands outside such a block. No reader's document names a /tmp path, which
no reader has."""

import re
from pathlib import Path

import pytest

from labanalysis.folder.series import FORMAT_VERSION

TOP = Path(__file__).resolve().parents[2]
RESULTS = TOP / "docs" / "results"
BLOCK = re.compile(r"<!-- headline: (?P<file>[^ ]+) -->\n(?P<body>.*?)<!-- /headline -->", re.S)
# A measured figure: a number with a unit of memory, time per request or rate, or a factor ("1.14x").
FIGURE = re.compile(r"\b\d[\d,]*(\.\d+)?\s?(KiB|MiB|GiB|µs|req/s|/s\b)|\b\d+\.\d+x\b")
SOURCE = re.compile(
    r"^From `(?P<run>[^`]+)` \((?:(?P<profile>[^ ]+) profile|make (?P<experiment>[a-z-]+)), (?P<commit>[^,]+), run-folder format (?P<format>\d+)\)"
)
READERS = ["README.md", "FINDINGS.md", *sorted(str(p.relative_to(TOP)) for p in (TOP / "docs").glob("*.md")), "infra/README.md"]


def blocks(text: str) -> list[tuple[str, str]]:
    return [(m["file"], m["body"]) for m in BLOCK.finditer(text)]


def outside_blocks(text: str) -> str:
    return BLOCK.sub("", text)


# The documents that publish figures, each only inside headline blocks.
PUBLISHING = ["README.md", "FINDINGS.md"]


def test_readme_publishes_its_verdict_from_a_headline():
    assert blocks((TOP / "README.md").read_text()), "README publishes its verdict inside a <!-- headline: docs/results/<run>.md --> block"


@pytest.mark.parametrize("document", PUBLISHING)
def test_every_line_of_a_published_block_is_in_the_headline_it_names(document):
    assert blocks((TOP / document).read_text()), f"{document} publishes its figures inside headline blocks, and has none"
    for file, body in blocks((TOP / document).read_text()):
        headline = (TOP / file).read_text()
        missing = [line for line in body.splitlines() if line.strip() and line not in headline.splitlines()]
        assert not missing, f"{document} quotes lines {file} does not hold: {missing}"


@pytest.mark.parametrize("document", PUBLISHING)
def test_no_measured_figure_stands_outside_a_published_block(document):
    stray = [m.group(0) for m in FIGURE.finditer(outside_blocks((TOP / document).read_text()))]
    assert not stray, f"{document} quotes figures outside a headline block: {stray}"


def sources(headline: Path) -> list[str]:
    """The lines naming the runs a headline comes from: its first, or, for `make headline A=… B=…`, its A and B lines."""
    lines = headline.read_text().splitlines()
    if lines[0].startswith("A: "):
        return [line.removeprefix("A: ").removeprefix("B: ") for line in lines if line.startswith(("A: ", "B: "))]
    return lines[:1]


@pytest.mark.parametrize("headline", sorted(RESULTS.glob("*.md")), ids=lambda p: p.name)
def test_a_committed_headline_comes_from_runs_this_analysis_reads(headline):
    for line in sources(headline):
        source = SOURCE.match(line)
        assert source, f"{headline.name} does not open with make headline's source line: {line[:120]}"
        assert int(source["format"]) == FORMAT_VERSION
        assert "uncommitted" not in source["commit"], f"{headline.name} is from a run of uncommitted code"


def test_a_comparisons_headline_names_both_runs(tmp_path):
    comparison = tmp_path / "a-vs-b.md"
    comparison.write_text("A: From `a` (local profile, 1234567, run-folder format 1), made by `x`.\n\nB: From `b` (...).\n")
    assert sources(comparison) == ["From `a` (local profile, 1234567, run-folder format 1), made by `x`.", "From `b` (...)."]


def test_the_committed_headlines_exist():
    assert sorted(RESULTS.glob("*.md")), "docs/results/ holds the headlines the documents publish"


@pytest.mark.parametrize("document", READERS)
def test_no_readers_document_names_a_tmp_path(document):
    assert "/tmp/" not in (TOP / document).read_text()


def test_the_figure_pattern_finds_a_measurement_and_leaves_a_setting():
    text = "PSS 13.7 KiB a socket, 1,600/s sustained, 1.23x over the runner-up; 15,000 sockets open, a 100 ms linger"

    assert [m.group(0) for m in FIGURE.finditer(text)] == ["13.7 KiB", "1,600/s", "1.23x"]
