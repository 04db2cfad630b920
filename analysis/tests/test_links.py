"""Code states a contract and links the docs that hold its evidence: every `docs/<file>.md, "<section>"` a comment names is a
section of that file, and every `<file>.md#<anchor>` link between the documents lands on a heading. A link that no longer
lands leaves the reader of the code, or of the docs, with a claim and no evidence."""

import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
DOCUMENTS = ["FINDINGS.md", "README.md", *sorted(str(p.relative_to(TOP)) for p in (TOP / "docs").glob("*.md"))]
# A comment's continuation marker, so that a section's name wrapped over two comment lines reads as one.
CONTINUATION = re.compile(r"\s*\n\s*(?://|\*|#)?\s*")
SECTION_REFERENCE = re.compile(r'\b((?:docs/)?(?:JOURNAL|METHODS|EXPERIMENTS|CONFORMANCE|under-load)\.md|FINDINGS\.md),? "([^"]+)"')
ANCHOR_LINK = re.compile(r"\]\(((?:[A-Za-z-]+/)*[A-Za-z-]+\.md)#([^)\s]+)\)")


def code_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "*/src/main/*", "analysis/labanalysis/*", "loadtests/*", "Makefile", "servers.json"],
        cwd=TOP,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [f for f in listed if f.endswith((".kt", ".java", ".py", ".go", ".json", ".js", "Makefile"))]


def headings(document: str) -> list[str]:
    return [line.lstrip("#").strip() for line in (TOP / document).read_text().splitlines() if line.startswith("#")]


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def names_a_section(document: str, section: str) -> bool:
    if document == "FINDINGS.md":  # FINDINGS is read by its bullets' first words, not only its headings
        return section in " ".join((TOP / document).read_text().split())
    return any(heading.startswith(section) for heading in headings(document))


@pytest.mark.parametrize("source", code_files())
def test_every_section_a_comment_names_exists(source):
    text = CONTINUATION.sub(" ", (TOP / source).read_text())
    missing = []
    for match in SECTION_REFERENCE.finditer(text):
        document = match[1] if match[1].startswith("docs/") or match[1] == "FINDINGS.md" else f"docs/{match[1]}"
        if not names_a_section(document, match[2]):
            missing.append(f'{document}, "{match[2]}"')
    assert not missing, f"{source} links sections that are not there: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_anchor_between_the_documents_lands_on_a_heading(document):
    here = (TOP / document).parent
    anchors: dict[Path, set[str]] = {}  # each linked document's anchors, read once
    missing = []
    for match in ANCHOR_LINK.finditer((TOP / document).read_text()):
        target = (here / match[1]).resolve()
        if not target.exists():
            continue
        if target not in anchors:
            anchors[target] = {anchor(h) for h in headings(str(target.relative_to(TOP)))}
        if match[2] not in anchors[target]:
            missing.append(f"{match[1]}#{match[2]}")
    assert not missing, f"{document} links anchors that are not there: {missing}"


def test_an_anchor_is_githubs():
    assert anchor("The curve's timeout (2026-12-04)") == "the-curves-timeout-2026-12-04"
    assert anchor("Ktor's client on engines that keep their connections") == "ktors-client-on-engines-that-keep-their-connections"
