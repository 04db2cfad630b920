"""The lab's changes to an engine, measured: each arm (a server run without some of those changes, or with an alternative in place of
one: `make bench ONLY=jetty-virtual,jetty-virtual:fill-lock`) set against the server it was made from, with the grid's arithmetic
(grid.effects: A less B, the conservative interval over passes). The grid leaves arms out (catalogue.without_arms).
"""

from __future__ import annotations

import pandas as pd

from ..folder import catalogue
from . import grid

# How the change effects name the server as the lab runs it, with all of its engine's changes.
EVERY_CHANGE = "every change"


def change_effects(passes: pd.DataFrame, figures: list[str] | None = None) -> pd.DataFrame:
    """Each arm against the server it was made from, every figure of `figures` (the headline figures unless told): A the arm (the
    engine without some of the lab's changes, or with an alternative in place of one), B the server as the lab runs it, so A less B
    is what the arm's difference does to the figure.

    `within` is the server's label; `A` says how the arm differs ("without fill-lock", "with non-pooling-buffers instead of
    fill-lock"), `B` is "every change". Empty when no arm ran beside its server (arms_alone names those).
    """
    rows = []
    servers = set(passes["server"]) if len(passes) else set()
    for arm in catalogue.order(list(servers)):
        base = catalogue.arm_of(arm)
        if base is None or base not in servers:
            continue
        a, b = passes[passes["server"] == arm], passes[passes["server"] == base]
        without = catalogue.label(arm).removeprefix(f"{catalogue.label(base)}, ")
        rows += grid.effects(passes, catalogue.label(base), without, EVERY_CHANGE, a, b, figures)
    return pd.DataFrame(rows, columns=grid.EFFECT_COLUMNS)


def arms_alone(passes: pd.DataFrame) -> list[str]:
    """The arms of `passes` whose server did not run beside them: nothing to set them against."""
    servers = set(passes["server"]) if len(passes) else set()
    return [arm for arm in catalogue.order(list(servers)) if (base := catalogue.arm_of(arm)) is not None and base not in servers]
