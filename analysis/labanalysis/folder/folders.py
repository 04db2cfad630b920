"""Where the lab's commands leave their folders: `results/<yyyyMMdd-HHmmss>-<kind>/`, side by side."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def newest_beside(beside: Path, suffix: str, marker: str, readable: Callable[[Path], bool] = lambda _: True) -> Path | None:
    """The newest `*<suffix>` folder holding `marker` that is `readable`, in the results folder that holds `beside`; None if there is
    none.

    The names start with their time, so the newest sorts last.
    """
    folders = sorted(p for p in Path(beside).resolve().parent.glob(f"*{suffix}") if (p / marker).is_file() and readable(p))
    return folders[-1] if folders else None
