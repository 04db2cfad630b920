"""How tables and problems look in the report: plain HTML tables, failures in red."""

from __future__ import annotations

import html
import math
import os
from pathlib import Path

import pandas as pd
from pandas.io.formats.style import Styler

from ..folder.run import Run

RED = "color: #b00020"


def table(frame: pd.DataFrame, index: bool = False) -> Styler:
    """A table with numbers written for people: thousands separated, two decimals at most, blanks for NaN."""
    styler = frame.style.format(_cell, na_rep="")
    return styler if index else styler.hide(axis="index")


def red_if_failed(frame: pd.DataFrame) -> Styler:
    """`table`, with every row whose status is not ok in red."""
    return table(frame).apply(lambda row: [RED if row.get("status") != "ok" else "" for _ in row], axis=1)


def problems_box(run: Run) -> str:
    """What the report leaves out and why, in red, first thing under the title; a green line if nothing is."""
    return problems_list(run.all_problems(), "Every server ran to the end and every file of the run was read whole.")


def problems_list(problems: list[str], all_well: str) -> str:
    """Problems in a red box, or `all_well` as a green line when there are none."""
    if not problems:
        return f"<p style='color: #1b5e20'>{html.escape(all_well)}</p>"
    items = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
    return (
        f"<div style='{RED}; border: 2px solid #b00020; padding: 0.5em 1em'>"
        f"<b>This run is not whole; the report leaves out what is missing:</b><ul>{items}</ul></div>"
    )


def marks_box(marks: list[str], heading: str) -> str:
    """Passes the report marks (a load generator that was the bottleneck), in red under `heading`; nothing when there are none."""
    if not marks:
        return ""
    items = "".join(f"<li>{html.escape(m)}</li>" for m in marks)
    return f"<div style='{RED}; border: 1px solid #b00020; padding: 0.5em 1em'><b>{html.escape(heading)}</b><ul>{items}</ul></div>"


def _cell(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if math.isnan(value):
        return ""
    if float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.2f}" if abs(value) >= 0.01 else f"{value:.3g}"


def relative_link(target: Path, start: Path, text: str) -> str:
    """A link to `target` relative to `start`, the folder the report is in: it still works once the folders are moved or copied whole."""
    return f"<a href='{html.escape(os.path.relpath(target, start))}'>{html.escape(text)}</a>"


def dashboard_links(run: Run) -> str:
    """Each pass's k6 dashboard export as a link relative to the run folder, where its report.html is; empty when none was kept."""
    links = [relative_link(path, run.folder, os.path.relpath(path.parent, run.folder)) for server in run.servers for path in server.k6_dashboards]
    return ("<p>k6's own view of each pass, its web dashboard as the pass ended: " + ", ".join(links) + ".</p>") if links else ""


def report_link(run: Run, start: Path) -> str:
    """A link to the run's report.html relative to `start`, named for the run; says how to render it when there is none yet."""
    report = run.folder / "report.html"
    missing = "" if report.is_file() else f" (no report.html yet: make report RUN={run.folder})"
    return relative_link(report, start, run.folder.name) + html.escape(missing)
