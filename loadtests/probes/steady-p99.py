"""How precisely a pass measures its steady /json p99 on the wire, and what decides it: for each pass of each run, the p99 with its
95% interval within the pass (latency.percentile_interval, a block bootstrap over the phase's seconds, as the verdict reads it), the
p99 of the median second, the seconds the phase had, and how few of them held half the requests slower than the phase's p99.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/steady-p99.py results/<run> [results/<run> ...]

Prints a Markdown table, a row per pass.
"""

import sys

import numpy as np
import pandas as pd

from labanalysis.bench import latency
from labanalysis.cli import one_line
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown


def seconds_holding_half(timed: pd.DataFrame, over_ms: float) -> int:
    """The fewest seconds that hold half the requests slower than `over_ms`."""
    slow = timed[timed["duration_ms"] > over_ms].groupby("timestamp").size().sort_values(ascending=False)
    return int(np.searchsorted(slow.cumsum().to_numpy(), slow.sum() / 2) + 1) if len(slow) else 0


def main(folders: list[str]) -> None:
    rows = []
    for folder in folders:
        run = load_run(folder)
        for server in run.servers:
            timed = latency.wire_timed(server, "json")
            if timed.empty:
                continue
            p99, low, high = latency.percentile_interval(timed, 99)
            by_second = timed.groupby("timestamp")["duration_ms"].agg(lambda v: latency.percentile(v, 99))
            rows.append(
                {
                    "run": run.folder.name,
                    "pass": server.folder.name,
                    "round": server.repeat,
                    "p99 (ms)": round(p99, 2),
                    "within the pass, 95%": f"{low:.2f} to {high:.2f}",
                    "the median second's p99 (ms)": round(float(by_second.median()), 2),
                    "seconds": len(by_second),
                    "seconds holding half the slower requests": seconds_holding_half(timed, p99),
                }
            )
    print(markdown(pd.DataFrame(rows)))


if __name__ == "__main__":
    sys.exit(one_line("steady-p99.py", lambda: main(sys.argv[1:]), RunFolderError))
