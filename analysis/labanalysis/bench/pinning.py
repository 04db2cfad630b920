"""Virtual-thread pinning, from each server's pinned.csv (one row per jdk.VirtualThreadPinned event)."""

from __future__ import annotations

import html

import pandas as pd

from ..folder.run import Run, ServerRun


def summary(run: Run) -> pd.DataFrame:
    """One row per server run: pinned events, their total and longest duration (ms)."""
    rows = []
    for server in run.servers:
        pinned = server.pinned
        durations = pinned["duration_ms"] if not pinned.empty else pd.Series(dtype=float)
        rows.append(
            {
                "run": server.name,
                "server": server.server,
                "events": len(durations),
                "total_ms": durations.sum(),
                "max_ms": durations.max() if len(durations) else 0.0,
            }
        )
    return pd.DataFrame(rows)


def top_stacks(server: ServerRun, limit: int = 5) -> pd.DataFrame:
    """The `limit` most frequent distinct stack traces (top frames), with their count and total duration."""
    pinned = server.pinned
    if pinned.empty:
        return pd.DataFrame(columns=["top_frames", "events", "total_ms", "max_ms"])
    grouped = pinned.groupby("top_frames")["duration_ms"].agg(events="count", total_ms="sum", max_ms="max").reset_index()
    return grouped.sort_values(["events", "total_ms"], ascending=False).head(limit).reset_index(drop=True)


def stacks_html(stacks: pd.DataFrame) -> str:
    """The top stacks as a list: counts first, then the frames, innermost first, one per line."""
    items = []
    for _, row in stacks.iterrows():
        frames = "<br>&nbsp;&nbsp;&lt; ".join(html.escape(f) for f in str(row["top_frames"]).split(" < "))
        items.append(
            f"<li><b>{row['events']} events, {row['total_ms']:,.0f} ms in all, longest {row['max_ms']:,.0f} ms</b><br><code>{frames}</code></li>"
        )
    return f"<ol>{''.join(items)}</ol>"
