"""The bench report's plots of memory: each measure against the sockets open, with the line fitted through a pass's snapshots,
and memory per socket split into its parts (memory.py). One colour per server (servers.json's)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from ..bench import memory
from ..folder import catalogue, repeats
from ..folder.run import Run
from .plot_style import MIB


def _points_and_line(ax, server, points, column: str, label: str) -> None:
    """A server's measured points of `column` (MiB) against open sockets, and the least-squares line through them from 0.

    A step that did not settle is drawn hollow, and the line leaves it out.
    """
    colour = catalogue.colour(server.server)
    settled = points["settled"].astype(bool) if "settled" in points.columns else pd.Series(True, index=points.index)
    ax.plot(points.loc[settled, "open_sockets"], points.loc[settled, column] / MIB, "o", color=colour, label=label)
    if not settled.all():
        unsettled = points[~settled]
        ax.plot(unsettled["open_sockets"], unsettled[column] / MIB, "o", color=colour, markerfacecolor="none", label=f"{server.name}: not settled")
    fit = memory.per_connection(points, column)
    if not math.isnan(fit.slope):
        xs = [0, points["open_sockets"].max()]
        ax.plot(xs, [fit.at(x) / MIB for x in xs], "-", color=colour, alpha=0.6, label=f"{server.name}: {fit.slope / 1024:.1f} KiB/socket")


def memory_against_sockets(run: Run, column: str, label: str):
    """`column` (rss_bytes, pss_bytes or heap_used_bytes) at each step's plateau against open sockets, with the fitted line."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for server in run.comparable:
        points = memory.plateaus(server)
        if points.empty:
            continue
        _points_and_line(ax, server, points, column, f"{server.name} plateaus")
    ax.set_title(f"{label} against open idle sockets")
    ax.set_xlabel("open idle WebSockets")
    ax.set_ylabel(f"{label} (MiB)")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def live_heap_against_sockets(run: Run):
    """The live heap after each GC during the socket steps, against the sockets open then, with the fitted line."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for server in run.comparable:
        points = memory.live_heap_points(server)
        if points.empty:
            continue
        _points_and_line(ax, server, points, "heap_after_gc_bytes", f"{server.name}: after each GC")
    ax.set_title("Live heap (after GC) against open idle sockets")
    ax.set_xlabel("open idle WebSockets")
    ax.set_ylabel("heap after GC (MiB)")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


_PART_COLOURS = {
    "heap": ["tab:blue"],
    "native": ["#d95f02", "#e6863b", "#f0a868", "#f6c493", "#fbdcbc", "#c2410c"],
    "kernel": ["#4d4d4d", "#8c8c8c", "#bdbdbd"],
}


def memory_parts(per_server: pd.DataFrame):
    """Per server (one row each), its bytes per open socket stacked from its parts, the median across passes of each: the live
    heap, NMT's native categories other than the heap, and the kernel's memory; RSS and PSS per socket as markers beside the stack,
    with whiskers over their passes' range. A part below 0 (a slope that came out negative) is drawn left of 0."""
    servers = list(dict.fromkeys(per_server["label"]))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.9 * max(len(servers), 1)))
    parts = [(c, part) for c, (_, part) in memory.COMPONENTS.items() if part is not None]
    colours = {part: iter(shades) for part, shades in _PART_COLOURS.items()}
    colour_of = {c: next(colours[part]) for c, part in parts}
    drawn = set()
    for y, label in enumerate(servers):
        rows = per_server[per_server["label"] == label].set_index("component")
        right = left = 0.0
        for component, _ in parts:
            if component not in rows.index or math.isnan(rows.loc[component, "median"]):
                continue
            kib = rows.loc[component, "median"] / 1024
            start = right if kib >= 0 else left + kib
            ax.barh(y, abs(kib), left=start, color=colour_of[component], edgecolor="white", linewidth=0.5,
                    label=None if component in drawn else memory.COMPONENTS[component][0])  # fmt: skip
            drawn.add(component)
            right, left = (right + kib, left) if kib >= 0 else (right, left + kib)
        for offset, (measure, marker) in zip((-0.28, 0.28), (("RSS", "D"), ("PSS", "s")), strict=True):
            if measure not in rows.index or math.isnan(rows.loc[measure, "median"]):
                continue
            r = rows.loc[measure]
            errors = [[(r["median"] - r["low"]) / 1024], [(r["high"] - r["median"]) / 1024]] if not math.isnan(r["low"]) else None
            ax.errorbar([r["median"] / 1024], [y + offset], xerr=errors, fmt=marker, color="black", markerfacecolor="white", capsize=3,
                        label=None if measure in drawn else f"{measure} per socket (not a sum of the parts)")  # fmt: skip
            drawn.add(measure)
    ax.set_yticks(range(len(servers)), servers, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlabel("KiB per open socket (median across passes; whiskers: RSS's and PSS's range across passes)")
    ax.set_title("Memory per open socket, by part")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig


def memory_components_against_sockets(runs: list[Run], measures: tuple[str, ...] = ("live heap", "native (NMT, not the heap)", "RSS")):
    """Each measure (MiB) at every snapshot against the sockets the server held open, one panel a measure, one line a pass (its
    server's colour): what each per-socket slope is fitted to, and how far apart the passes lie."""
    fig, axes = plt.subplots(1, len(measures), figsize=(4 * len(measures), 3.6), squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        seen = set()
        for _, server, base in repeats.each_pass(runs):
            points = memory.snapshots(server)
            if measure not in points.columns or points[measure].isna().all():
                continue
            ax.plot(points["open_sockets"], points[measure] / MIB, "o-", color=catalogue.colour(server.server), markersize=3, linewidth=1,
                    alpha=0.8, label=None if server.server in seen else base["label"])  # fmt: skip
            seen.add(server.server)
        ax.set_title(measure, fontsize=9)
        ax.set_xlabel("sockets open (the server's count)")
        ax.grid(alpha=0.3)
        if seen:
            ax.legend(fontsize=7)
    axes[0][0].set_ylabel("MiB at the snapshot (after a full GC)")
    fig.tight_layout()
    return fig


def cold_and_warm(per_pass: pd.DataFrame, measure: str = memory.HELD):
    """Each server's `measure` per socket (KiB), cold beside warm (warm_sockets.per_pass): the median over its passes, with a bar
    from the lowest pass to the highest; the warm bar hatched."""
    rows = per_pass[per_pass["measure"] == measure]
    labels = list(dict.fromkeys(rows["label"]))
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.6 * len(labels)))
    for i, label in enumerate(labels):
        passes = rows[rows["label"] == label]
        colour = catalogue.colour(passes["server"].iloc[0])
        for offset, sockets, hatch in ((-0.2, memory.COLD, None), (0.2, memory.WARM, "//")):
            kib = passes[sockets].dropna() / 1024
            if kib.empty:
                continue
            ax.barh(i + offset, kib.median(), height=0.35, color=colour, alpha=0.8 if hatch is None else 0.35, hatch=hatch, edgecolor=colour)
            ax.plot([kib.min(), kib.max()], [i + offset] * 2, "-", color="black", linewidth=1)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"{measure}, KiB a socket (solid: cold, hatched: warm; a line from the lowest pass to the highest)")
    ax.set_title("What an idle socket holds, opened before the load (cold) and after it (warm)")
    ax.grid(axis="x", alpha=0.3)
    return fig
