"""The collector's pauses inside one load phase of a bench run, per server: how many there were a pass, and the longest, as the
median [range] over the passes (jfr-series.csv's `gc_pause_ms`, each collection's pauses summed, at its start). The report's GC
table counts a pass's pauses over its whole run, the full collections of the heap histograms with them; this counts only those
that fell inside the phase the requests were timed in.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/gc-pauses-in-phase.py [--phase json] results/<run> ...

Prints one Markdown table: a row per run and server.
"""

import sys
from pathlib import Path

import pandas as pd

from labanalysis.cli import one_line, runs_parser
from labanalysis.folder.repeats import compared
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown
from labanalysis.stats import across, numbers


def main() -> None:
    parser = runs_parser("gc-pauses-in-phase.py", "The collector's pauses inside one load phase, per server.", "[--phase json]")
    parser.add_argument("--phase", default="json", help="the load phase (the manifest's timeline), by default the steady /json phase")
    args = parser.parse_args()
    rows = []
    for folder in args.runs:
        run = load_run(folder)
        counts, longest = {}, {}
        for server in compared(run):
            jfr = server.jfr
            pauses = jfr.loc[(jfr["metric"] == "gc_pause_ms") & (jfr["phase"] == args.phase), "value"]
            counts.setdefault(server.server, []).append(len(pauses))
            longest.setdefault(server.server, []).append(float(pauses.max()) if len(pauses) else 0.0)
        for server in counts:
            rows.append(
                {
                    "run": Path(folder).name,
                    "collector": run.collector,
                    "server": server,
                    f"pauses in {args.phase}, a pass": numbers.shown(across(counts[server]), passes=False),
                    "longest (ms)": numbers.shown(across(longest[server]), passes=False),
                    "passes": len(counts[server]),
                }
            )
    print(markdown(pd.DataFrame(rows)))


if __name__ == "__main__":
    sys.exit(one_line("gc-pauses-in-phase.py", main, RunFolderError))
