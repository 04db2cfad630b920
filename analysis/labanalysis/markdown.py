"""A table as GitHub Markdown: what make headline, make advise and the probes print for docs/results/ and a reader's terminal."""

from __future__ import annotations

import math

import pandas as pd


def markdown(frame: pd.DataFrame, index: bool = False) -> str:
    """`frame` as a GitHub table: one header row, every cell as text, a `|` inside a cell escaped so it cannot split the cell."""
    if index:
        frame = frame.reset_index()
    if frame.empty:
        return "(no rows)"

    def cell(value) -> str:
        return (
            ""
            if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))
            else str(value).replace("|", "\\|").replace("\n", " ")
        )

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)
