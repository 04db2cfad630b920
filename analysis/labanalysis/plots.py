"""The report's plots: each with a title, axis units and a legend, one colour per server throughout."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from . import memory
from .run import Run

COLOURS = {"coroutine": "tab:blue", "vthread": "tab:green", "platform": "tab:red"}
MIB = 1 << 20


def memory_against_sockets(run: Run, column: str, label: str):
    """`column` (rss_bytes, pss_bytes or heap_used_bytes) at each step's plateau against open sockets, with the fitted line."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for server in run.servers:
        points = memory.plateaus(server)
        if points.empty:
            continue
        colour = COLOURS.get(server.server)
        ax.plot(points["open_sockets"], points[column] / MIB, "o", color=colour, label=f"{server.name} plateaus")
        fit = memory.per_connection(points, column)
        if fit.points >= 2 and fit.slope == fit.slope:
            xs = [0, points["open_sockets"].max()]
            ax.plot(xs, [fit.at(x) / MIB for x in xs], "-", color=colour, alpha=0.6, label=f"{server.name}: {fit.slope / 1024:.1f} KiB/socket")
    ax.set_title(f"{label} against open idle sockets")
    ax.set_xlabel("open idle WebSockets")
    ax.set_ylabel(f"{label} (MiB)")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def over_time(run: Run, series: str, metric: str, label: str, unit: str, scale: float = 1.0):
    """One metric over each server's run (seconds since its JVM started): from `proc` (a column) or `jfr` (a metric)."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for server in run.servers:
        frame = server.proc if series == "proc" else server.jfr
        if frame.empty:
            continue
        if series == "proc":
            xs, ys = frame["time_s"], frame[metric]
        else:
            rows = frame[frame["metric"] == metric]
            xs, ys = rows["time_s"], rows["value"]
        ax.plot(xs, ys / scale, color=COLOURS.get(server.server), label=server.name)
    ax.set_title(f"{label} over the run")
    ax.set_xlabel("seconds since the server started")
    ax.set_ylabel(f"{label} ({unit})")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def latency_percentiles(table: pd.DataFrame, endpoint: str):
    """p50 to max for each server run, side by side, on a log scale (tails differ by orders of magnitude)."""
    fig, ax = plt.subplots(figsize=(8, 4))
    columns = ["p(50)", "p(90)", "p(99)", "p(99.9)", "max"]
    width = 0.8 / max(len(table), 1)
    for i, (_, row) in enumerate(table.iterrows()):
        xs = [j + i * width for j in range(len(columns))]
        ax.bar(xs, [row[c] for c in columns], width=width, color=COLOURS.get(row["server"]), label=row["run"])
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(columns))], columns)
    ax.set_yscale("log")
    ax.set_title(f"/{endpoint} latency percentiles")
    ax.set_ylabel("latency (ms, log scale)")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    return fig
