"""What every plot of the lab shares: one colour per server and per model (servers.json's), log axes with plain numbers, and
a line a server of medians across passes with their ranges, in a row of panels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..folder import catalogue

MIB = 1 << 20


def plain_log_axis(axis) -> None:
    """A log axis labelled 1, 2, 5, 10, 20, 50 ... rather than 2x10^0, and no crowded minor labels."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def medians_with_ranges(ax, values: pd.DataFrame, x: str) -> None:
    """One line a server of `values` (repeats.per_server's columns): its points the medians across passes at each `x`, whiskers
    their range (none at a point measured in one pass)."""
    for server, points in values.groupby("server", sort=False):
        ranged = points["passes"] >= 2
        # One (2, n) array: matplotlib reads a single point's errors given any other way with float(), which numpy deprecates.
        errors = np.vstack([(points["median"] - points["low"]).where(ranged, 0), (points["high"] - points["median"]).where(ranged, 0)])
        ax.errorbar(points[x], points["median"], yerr=errors, marker="o", capsize=3, color=catalogue.colour(server), label=catalogue.label(server))


def medians_panels(panels: list[tuple[str, bool]], values_of, x: str, x_label: str, title: str, log_x: bool = False, reference=None):
    """A row of panels, one per (figure, log y) of `panels`: `values_of(figure)` (repeats.per_server's columns) as a line a server
    along `x` (medians_with_ranges), and `reference(ax, figure, values)`, where given, drawing a line to read them against."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (figure, log_y) in zip(axes[0], panels, strict=True):
        values = values_of(figure)
        medians_with_ranges(ax, values, x)
        if reference is not None:
            reference(ax, figure, values)
        for axis, scale, log in ((ax.xaxis, ax.set_xscale, log_x), (ax.yaxis, ax.set_yscale, log_y)):
            if log:
                scale("log")
                plain_log_axis(axis)
        ax.set_xlabel(x_label)
        ax.set_ylabel(figure)
        ax.set_title(f"{title}: {figure}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def model_colour(model: str) -> str:
    """A model's colour: that of the catalogue's first server of the model, so a model looks the same here as in the bench report."""
    return next((s.colour for s in catalogue.servers() if s.model == model), catalogue.UNKNOWN_COLOUR)
