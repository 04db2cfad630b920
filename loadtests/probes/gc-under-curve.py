"""What ZGC did while each server's curve ran, pass by pass: how many cycles began in the curve's steps, how long they ran, the
longest, and how often and how long the server's threads stalled waiting for memory (jfr-series.csv: gc_major_cycle_s,
gc_minor_cycle_s, allocation_stall_ms; lab.bench.collect.JfrCollector). ZGC collects on the server's own CPU budget, so a cycle
that runs long is CPU the requests did not get, and a stall is a request's thread stopped until a cycle frees memory.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/gc-under-curve.py [--server jetty-platform] results/<run> ...

Prints a Markdown table, a row per pass.
"""

import argparse

import pandas as pd

from labanalysis.curve import curve
from labanalysis.folder.run import load_run
from labanalysis.markdown import markdown

CYCLES = ("gc_major_cycle_s", "gc_minor_cycle_s")
STALL = "allocation_stall_ms"


def in_curve(jfr: pd.DataFrame) -> pd.DataFrame:
    """The series' rows of the curve's steps, as curve.py names them (a step at a rate, a search's slot), with the phase in
    which each settles (`-to-` before the rate or slot)."""
    steps = jfr["phase"].str.replace("-to-", "-at-", n=1, regex=False).str.replace("-at-search-", "-search-", regex=False)
    return jfr[steps.str.match(curve.STEP_PHASE) | steps.str.match(curve.SEARCH_SLOT)]


def per_pass(folder: str, server: str | None) -> list[dict]:
    run = load_run(folder)
    rows = []
    for s in run.servers:
        if server and s.server != server:
            continue
        curve = in_curve(s.jfr)
        cycles = curve[curve["metric"].isin(CYCLES)]["value"].astype(float)
        stalls = curve[curve["metric"] == STALL]["value"].astype(float)
        rows.append(
            {
                "run": run.folder.name,
                "pass": s.name,
                "ZGC cycles begun": len(cycles),
                "their seconds": round(cycles.sum(), 1),
                "longest (s)": round(cycles.max(), 1) if len(cycles) else 0.0,
                "allocation stalls": len(stalls),
                "stalled (s)": round(stalls.sum() / 1000, 1),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="ZGC's cycles and allocation stalls in each pass's curve.")
    parser.add_argument("--server", help="one server (its catalogue name); all where omitted")
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args()
    print(markdown(pd.DataFrame([row for folder in args.runs for row in per_pass(folder, args.server)])))


if __name__ == "__main__":
    main()
