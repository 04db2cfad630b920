"""Whether a full step's cost a request holds for its whole 10 s or moves within it: what a core of each server served in the first
half of the `/json` full step and in the second (the requests the wire saw, over the server's cores in the same seconds), pass by
pass, and per server how much the passes spread (the SD of the log) and how closely a pass's halves agree (their correlation over
the passes). Halves that agree closely while passes spread say that the cost a pass reads is set for longer than the step; halves
that do not, that more seconds of it would narrow the spread.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/full-step-halves.py results/<run> ...

Prints two Markdown tables: a row per pass, then a row per server over every pass of the runs given.
"""

import math
import statistics
import sys

import pandas as pd

from labanalysis.cli import one_line, runs_parser
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown

PHASE = "json-full"


def served_a_core(server) -> list[tuple[float, float]]:
    """(requests the wire saw, the server's cores) for each whole second of the full step: cpu.csv's row at t covers the second
    before it, so it pairs with the wire's second t - 1; the step's first and last seconds, partly outside it, are left out."""
    wire = server.wire[server.wire["phase"] == PHASE]
    answered = wire["time_s"].astype(int).value_counts()
    cpu = server.cpu[server.cpu["phase"] == PHASE]
    seconds = [(float(answered.get(int(t) - 1, 0)), float(c)) for t, c in zip(cpu["time_s"], cpu["server"], strict=True)]
    seconds = [(n, c) for n, c in seconds if n > 0 and c > 0]
    return seconds[1:-1]


def per_core(seconds: list[tuple[float, float]]) -> float:
    return sum(n for n, _ in seconds) / sum(c for _, c in seconds) if seconds else math.nan


def main() -> None:
    parser = runs_parser("full-step-halves.py", __doc__.splitlines()[0])
    args = parser.parse_args()
    rows = []
    for folder in args.runs:
        run = load_run(folder)
        for server in run.servers:
            seconds = served_a_core(server)
            if len(seconds) < 4:
                continue
            half = len(seconds) // 2
            rows.append(
                {
                    "run": run.folder.name,
                    "pass": server.name,
                    "server": server.server,
                    "whole": per_core(seconds),
                    "first half": per_core(seconds[:half]),
                    "second half": per_core(seconds[half:]),
                }
            )
    if not rows:
        raise RunFolderError("no pass of these runs has a /json full step the wire saw: give runs of the local profile")
    passes = pd.DataFrame(rows)
    print(markdown(passes.round(0)))
    print()
    spread = []
    for name, group in passes.groupby("server", sort=False):
        logs = {c: [math.log(v) for v in group[c]] for c in ("whole", "first half", "second half")}
        spread.append(
            {
                "server": name,
                "passes": len(group),
                **{f"SD of the log, {c}": round(statistics.stdev(v), 3) for c, v in logs.items()},
                "halves' correlation": round(statistics.correlation(logs["first half"], logs["second half"]), 2),
            }
        )
    print(markdown(pd.DataFrame(spread)))


if __name__ == "__main__":
    sys.exit(one_line("full-step-halves.py", main, RunFolderError))
