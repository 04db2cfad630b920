"""A figure as a reader is shown it, in a sentence, a table's cell or a headline: one format, so that the same figure reads the
same wherever it stands."""

from __future__ import annotations

import math
from collections.abc import Callable

from .across import Across


def number(value: float) -> str:
    """Whole from 100 on, thousands separated; two decimals from 1; three significant digits below; blank for NaN."""
    if math.isnan(value):
        return ""
    if float(value).is_integer() or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2f}" if abs(value) >= 1 else f"{value:.3g}"


def shown(value: Across, number: Callable[[float], str] = number, passes: bool = True) -> str:
    """A figure across passes as a reader is shown it: `median [lowest, highest] over N passes`, or `median (one pass)`, each
    figure in `number`'s format (a table in MiB or bytes gives its own); without `passes`, where a table says how many passes
    once, `median [lowest, highest]`."""
    if value.passes == 0:
        return "not measured"
    if not value.has_interval:
        return f"{number(value.median)} (one pass)"
    over = f" over {value.passes} passes" if passes else ""
    return f"{number(value.median)} [{number(value.low)}, {number(value.high)}]{over}"
