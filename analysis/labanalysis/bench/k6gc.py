"""k6's own garbage collections, from the lines its Go runtime writes to k6.log (`GODEBUG=gctrace=1`, lab.bench.load.K6GoRuntime).

k6 runs on the load's CPUs, one of them on a 2-core host, and a collection of its heap there stops its requests for up to seconds:
they start late, and wait, and their time counts as the server's in k6's figures. A figure taken while k6 collected is k6's, so the
analysis puts each collection on the load's timeline, beside the phase it fell in.

A line reads `gc 1 @82.157s 2%: 0.15+3009+0.026 ms clock, ... 5263->5315->1264 MB, ...`: the collection's number, its start in
seconds since k6 started, and its wall time in three parts (a stop, the concurrent mark, a stop), then the heap before, at the end
of the mark, and live after.
"""

from __future__ import annotations

import re

import pandas as pd

from ..folder.run import ServerRun

LINE = re.compile(r"^gc (?P<number>\d+) @(?P<at>[\d.]+)s [^:]*: (?P<clock>[\d.+]+) ms clock, .*?(?P<before>\d+)->\d+->(?P<live>\d+) MB")
COLUMNS = ["number", "load_s", "wall_ms", "heap_before_mb", "live_mb"]


def collections(server: ServerRun) -> pd.DataFrame:
    """Each collection k6 made in this pass (COLUMNS): when, in seconds since the load started (the harness's clock, on which the
    phases are), and for how long. Empty where k6.log has none, or the pass did not record when k6 started."""
    path = server.folder / "k6.log"
    k6_start, load_start = server.outcome.k6_start_epoch_ms, server.outcome.load_start_epoch_ms
    if not path.is_file() or k6_start is None or load_start is None:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for line in path.read_text(errors="replace").splitlines():
        match = LINE.match(line)
        if match:
            rows.append(
                {
                    "number": int(match["number"]),
                    "load_s": (k6_start + float(match["at"]) * 1000 - load_start) / 1000,
                    "wall_ms": sum(float(part) for part in match["clock"].split("+")),
                    "heap_before_mb": int(match["before"]),
                    "live_mb": int(match["live"]),
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def wall_ms_within(server: ServerRun, from_s: float, to_s: float) -> float:
    """How many ms of k6's collections overlap [from_s, to_s) seconds of load."""
    found = collections(server)
    if found.empty:
        return 0.0
    ends = found["load_s"] + found["wall_ms"] / 1000
    overlap = (ends.clip(upper=to_s) - found["load_s"].clip(lower=from_s)).clip(lower=0)
    return float(overlap.sum() * 1000)
