"""A figure as a reader is shown it, in a sentence or a grid's cell."""

from __future__ import annotations

import math


def number(value: float) -> str:
    """A figure in a sentence or a grid cell: three significant digits or so, thousands separated; blank for NaN."""
    if math.isnan(value):
        return ""
    if abs(value) >= 100 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}" if abs(value) >= 1 else f"{value:.2g}"
