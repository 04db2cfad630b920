"""The pinning audit (`make audit-pinning`, a `results/<timestamp>-pinning/` folder) as a table for the report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

AUDIT_SUFFIX = "-pinning"


def cells(folder: Path) -> list[dict]:
    return json.loads((folder / "audit.json").read_text())


def matrix(audit: list[dict]) -> pd.DataFrame:
    """Subject x (server, JDK): `no`, or how often and how long it pinned; the audit's own order of subjects and columns."""
    columns = list(dict.fromkeys(f"{c['server']} JDK {c['jdk']}" for c in audit))
    subjects = list(dict.fromkeys(c["subject"] for c in audit))
    table = pd.DataFrame("", index=subjects, columns=columns)
    for c in audit:
        table.loc[c["subject"], f"{c['server']} JDK {c['jdk']}"] = describe(c)
    table.index.name = "subject"
    return table


def describe(cell: dict) -> str:
    if not cell["pinnedEvents"]:
        return "no"
    alarm = "MUST NOT PIN: " if cell["mustNotPin"] else ""
    return f"{alarm}pinned {cell['pinnedEvents']}x, {cell['pinnedMs']:,.0f} ms"


def violations(audit: list[dict]) -> list[str]:
    """The paths that must not pin and did: `subject on server JDK n`."""
    return [f"{c['subject']} on {c['server']} JDK {c['jdk']}" for c in audit if c["mustNotPin"] and c["pinnedEvents"]]
