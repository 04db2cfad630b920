"""Every step of a ladder that filled the server's CPU budget, pass by pass: what it answered of what it was offered, what a core
of it served there, and what else ran in the step (a major GC cycle, the budget's hold, requests dropped). A capacity per CPU is
the most a core served in such a step (curve_verdicts.served_when_full); this shows how much the steps it was chosen among
differed, and why.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/full-steps.py [--server jetty-platform] [--endpoint json] results/<run> ...

Prints a Markdown table, a row per step that filled the budget.
"""

import sys

import pandas as pd

from labanalysis.cli import one_line, runs_parser
from labanalysis.curve import curve, curve_verdicts
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown


def main() -> None:
    parser = runs_parser("full-steps.py", "The steps that filled each server's CPU budget.", "[--server NAME] [--endpoint json|dashboard]")
    parser.add_argument("--server", help="one server (its catalogue name); all where omitted")
    parser.add_argument("--endpoint", default="json")
    args = parser.parse_args()
    steps = curve.per_step([load_run(folder) for folder in args.runs])
    steps = steps[steps["endpoint"] == args.endpoint]
    if args.server:
        steps = steps[steps["server"] == args.server]
    full = curve_verdicts.filled_budget(steps)
    table = pd.DataFrame(
        {
            "run": full["run folder"],
            "pass": full["pass"],
            "offered (req/s)": full["offered_per_s"].round(0),
            "answered (req/s)": full["achieved_per_s"].round(0),
            "a core served (req/s)": curve_verdicts.served_a_core(full).round(0),
            "dropped": full["dropped"].round(0),
            "wire p99 (ms)": full["wire_p99_ms"].round(1),
            "major GC in the step (s)": full["server_gc_major_s"].round(1),
            "budget held it back (share)": full["server_throttled_share"].round(2),
            "load busy": full["load_busy"].round(2),
        }
    )
    print(markdown(table))


if __name__ == "__main__":
    sys.exit(one_line("full-steps.py", main, RunFolderError))
