"""A server's memory per idle socket, split into its model's floor (`make floor`: a parked task with no server around it) and the
rest, which is the engine's and its WebSocket session's. The servers that differ only in their model (the Jetty row of the grid)
should have the same rest; a rest that differs says the servers differ in more than how they wait.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..bench import memory
from ..floor import floor
from ..folder import catalogue, repeats
from ..folder.run import Run
from ..stats.numbers import number
from .grid import per_server

# Memory per socket as `make floor` names its measures (memory.MEASURES names them the same).
PER_SOCKET = ["RSS", "PSS", "live heap"]

FLOOR_DEPTH = 0  # a task parked directly: the model's own cost
DEEP_DEPTH = 20  # parked 20 frames deep: what a real handler's stack adds, said beside it


def per_socket(runs: list[Run]) -> pd.DataFrame:
    """Per server and measure (RSS, PSS, live heap): bytes per idle socket, the median over its passes with their range.

    Each pass's figure is memory.per_socket_fit's slope.
    """
    rows = [
        {**base, "figure": measure, "value": memory.per_socket_fit(server, measure).slope}
        for _, server, base in repeats.each_pass(runs)
        for measure in PER_SOCKET
    ]
    table = per_server(pd.DataFrame(rows, columns=[*repeats.PASS_COLUMNS, "figure", "value"]))
    return table.rename(columns={"figure": "measure"})


def load_floor(folder: str | Path | None) -> tuple[pd.DataFrame | None, str]:
    """`make floor`'s per-task table from `folder`, and a line saying where it came from or why there is none."""
    if not folder:
        return None, (
            "No `make floor` folder beside this run: run `make floor`, then render this report again "
            "(delete the run's report-inputs.json so that the new folder is picked up)."
        )
    folder = Path(folder)
    try:
        return floor.per_task(folder), f"The floor is `{folder.name}`'s."
    except floor.FloorFolderError as refused:
        return None, f"The floor beside this run cannot be shown: {refused}."


DECOMPOSITION_COLUMNS = [
    "server", "label", "engine", "model", "measure", "per socket", "per socket low", "per socket high", "passes",
    "floor", "floor low", "floor high", "floor repeats", "floor at depth 20", "rest", "rest low", "rest high", "note",
]  # fmt: skip


def decomposition(per_socket_table: pd.DataFrame, floor: pd.DataFrame | None, jdk, warmth: str) -> pd.DataFrame:
    """Per server and measure: its bytes per idle socket, its model's floor per parked task on `jdk` (depth 0), and the rest. The
    floor's tasks are of `warmth`, the sockets' (the run's sockets_headline): a socket opened cold is set against a task parked
    cold, one opened warm against a task parked warm.

    The rest (per socket less floor) is the engine's and its WebSocket session's: the connection,
    its buffers and pipeline, and whatever the engine keeps per session. Its interval is the
    conservative one, [per socket low - floor high, per socket high - floor low], where both have a
    range. The depth-20 floor is given beside it: a task parked 20 frames deep costs more, and a
    handler's wait may be that deep. Without a floor, every per-socket figure a pass measured is still
    given, with a note that says what is missing.
    """
    rows = []
    measures = PER_SOCKET if floor is None else [m for m in PER_SOCKET if floor["measure"].isin(FLOOR_PARTS[m]).any()]
    wanted = per_socket_table[per_socket_table["measure"].isin(measures)]
    if floor is None:
        wanted = wanted[wanted["passes"] > 0]  # nothing to split, so nothing to say of a figure no pass measured
    for _, s in wanted.iterrows():
        base = _floor_row(floor, jdk, warmth, s["model"], s["measure"], FLOOR_DEPTH)
        deep = _floor_row(floor, jdk, warmth, s["model"], s["measure"], DEEP_DEPTH)
        both = not math.isnan(s["low"]) and base is not None and not math.isnan(base["low"])
        rows.append(
            {
                "server": s["server"],
                "label": s["label"],
                "engine": s["engine"],
                "model": s["model"],
                "measure": s["measure"],
                "per socket": s["median"],
                "per socket low": s["low"],
                "per socket high": s["high"],
                "passes": s["passes"],
                "floor": base["median"] if base is not None else math.nan,
                "floor low": base["low"] if base is not None else math.nan,
                "floor high": base["high"] if base is not None else math.nan,
                "floor repeats": base["repeats"] if base is not None else 0,
                "floor at depth 20": deep["median"] if deep is not None else math.nan,
                "rest": s["median"] - base["median"] if base is not None else math.nan,
                "rest low": s["low"] - base["high"] if both else math.nan,
                "rest high": s["high"] - base["low"] if both else math.nan,
                "note": _decomposition_note(floor, jdk, warmth, s, base),
            }
        )
    return pd.DataFrame(rows, columns=DECOMPOSITION_COLUMNS)


# What a parked task holds, as make floor measures it, against each per-socket measure. A task's RSS in a floor JVM
# is not its cost: for the models whose tasks live on the heap it is the heap pages the warm-up's garbage touched
# (floor_verdicts.recommendations says the same), so RSS and PSS are set against the live heap plus the thread memory the
# JVM commits for the task (NMT's Thread category: a platform thread's stack, next to nothing otherwise).
FLOOR_PARTS = {
    "RSS": ("live heap", "NMT thread committed"),
    "PSS": ("live heap", "NMT thread committed"),
    "live heap": ("live heap",),
}


def _floor_row(floor: pd.DataFrame | None, jdk, warmth: str, model: str, measure: str, depth: int) -> pd.Series | None:
    """The floor set against `measure`: the sum of its parts (FLOOR_PARTS), low with low and high with high."""
    if floor is None:
        return None
    of_jdk = floor["jdk"].map(repeats.feature) == repeats.feature(jdk)
    here = floor[of_jdk & (floor["warmth"] == warmth) & (floor["model"] == model) & (floor["depth"] == depth)]
    parts = here[here["measure"].isin(FLOOR_PARTS[measure])]
    if len(parts) != len(FLOOR_PARTS[measure]):
        return None
    low, high = parts["low"], parts["high"]
    return pd.Series(
        {
            "median": parts["median"].sum(),
            "low": low.sum() if low.notna().all() else math.nan,
            "high": high.sum() if high.notna().all() else math.nan,
            "repeats": parts["repeats"].min(),
        }
    )


def _decomposition_note(floor: pd.DataFrame | None, jdk, warmth: str, server: pd.Series, base: pd.Series | None) -> str:
    if server["passes"] == 0:
        return "not measured in these runs"
    if floor is None:
        return "no floor: run make floor"
    if base is None:
        return f"the floor has no {catalogue.MODEL_WORDS.get(server['model'], server['model'])} at depth {FLOOR_DEPTH}, {warmth}, on JDK {jdk}"
    if server["passes"] == 1:
        return "one pass: no interval"
    return ""


def decomposition_table(decomposed: pd.DataFrame) -> pd.DataFrame:
    """The decomposition for a reader, in bytes: per socket, floor (depth 0 and 20), the rest, and each one's range."""

    def with_range(median, low, high) -> str:
        return f"{number(median)} [{number(low)}, {number(high)}]" if not math.isnan(low) else number(median)

    rows = []
    for _, d in decomposed.iterrows():
        rows.append(
            {
                "server": d["label"],
                "engine": d["engine"],
                "model": d["model"],
                "measure": d["measure"],
                "per socket (bytes)": with_range(d["per socket"], d["per socket low"], d["per socket high"]),
                "model's floor, depth 0 (bytes)": with_range(d["floor"], d["floor low"], d["floor high"]),
                "floor at depth 20 (bytes)": number(d["floor at depth 20"]),
                "rest: engine + WebSocket session (bytes)": with_range(d["rest"], d["rest low"], d["rest high"]),
                "passes": d["passes"],
                "note": d["note"],
            }
        )
    return pd.DataFrame(rows)
