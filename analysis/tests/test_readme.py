"""README is the reader's first page: at most 200 lines, opening with the verdict, then the two commands, the grid, the
prerequisites and the words it uses, and everything else after them."""

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
LEADING = ["The verdict", "Two commands", "The grid", "Prerequisites", "Words used here"]


def test_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


def test_readme_opens_with_the_verdict_then_the_commands_the_grid_the_prerequisites_and_its_words():
    sections = [line[3:] for line in README.read_text().splitlines() if line.startswith("## ")]

    assert [next((s for s in sections if s.startswith(lead)), None) for lead in LEADING] == sections[: len(LEADING)]
