"""What a request cost each server in the curve's steps its CPU budget held back, against the steps at the same offered rate it did
not: whether a server's CPU per request rises once the budget throttles it, so that the same rate, offered to the same server,
is served in some passes and not in others.

A step is held back where the budget's quota stopped the server for the lab's mark of a full budget or more
(curve_verdicts.THROTTLED_FULL of the step's seconds; cpu.csv's server_throttled_s, the step's server_throttled_share; a budget of
0.4 of a CPU stops it for at most 0.6), and free where it stopped it for FREE_SHARE or less; steps between are left out. A request's
cost is the step's server cores over the rate it answered, all in (the fixed part, pings and collector included). Read at one
offered rate, so that both sides spread the fixed part over about as many requests (the answered share says how many).

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/held-back-cost.py [--endpoint dashboard] results/<run> ...

Prints a Markdown table, a row per server and offered rate at which some pass's step was held back and another's free: the count
of each, their median µs a request and the collector's median share of the step's cores, and held back over free.
"""

import sys

import pandas as pd

from labanalysis.cli import one_line, runs_parser
from labanalysis.curve import curve, curve_verdicts
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown

FREE_SHARE = 0.1


def sides(steps: pd.DataFrame) -> pd.DataFrame:
    """The judged steps with CPU and an answered rate, each as held back, free or neither, with its µs a request and GC share."""
    steps = steps[steps["judged"].astype(bool) & (steps["server_cores"] > 0) & (steps["achieved_per_s"] > 0)].copy()
    share = steps["server_throttled_share"]
    steps["side"] = share.map(lambda s: "held back" if s >= curve_verdicts.THROTTLED_FULL else ("free" if s <= FREE_SHARE else ""))
    steps["us_a_request"] = 1e6 / curve_verdicts.served_a_core(steps)
    steps["gc_share"] = steps["server_gc_cores"] / steps["server_cores"]
    return steps[steps["side"] != ""]


def table(steps: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (server, rate), group in sides(steps).groupby(["server", "offered_per_s"], sort=True):
        held, free = group[group["side"] == "held back"], group[group["side"] == "free"]
        if held.empty or free.empty:
            continue
        rows.append(
            {
                "server": server,
                "offered (req/s)": int(rate),
                "steps held back": len(held),
                "steps free": len(free),
                "µs a request, held back": round(held["us_a_request"].median()),
                "µs a request, free": round(free["us_a_request"].median()),
                "held back over free": round(held["us_a_request"].median() / free["us_a_request"].median(), 2),
                "collector's share, held back": round(held["gc_share"].median(), 3),
                "collector's share, free": round(free["gc_share"].median(), 3),
                "answered of offered, held back": round((held["achieved_per_s"] / held["offered_per_s"]).median(), 2),
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = runs_parser(
        "held-back-cost.py", "A request's CPU in steps the budget held back, against free steps at the same rate.", "[--endpoint json|dashboard]"
    )
    parser.add_argument("--endpoint", default="dashboard")
    args = parser.parse_args()
    steps = curve.per_step([load_run(folder) for folder in args.runs])
    print(markdown(table(steps[steps["endpoint"] == args.endpoint])))


if __name__ == "__main__":
    sys.exit(one_line("held-back-cost.py", main, RunFolderError))
