"""What ZGC did while each server's curve ran, pass by pass: how many cycles began in the curve's steps, how long they ran, the
longest, and how often and how long the server's threads stalled waiting for memory (jfr-series.csv: gc_major_cycle_s,
gc_minor_cycle_s, allocation_stall_ms; lab.bench.collect.JfrCollector). ZGC collects on the server's own CPU budget, so a cycle
that runs long is CPU the requests did not get, and a stall is a request's thread stopped until a cycle frees memory.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/gc-under-curve.py [--server jetty-platform] results/<run> ...

Prints a Markdown table, a row per pass: beside the curve's whole, each ladder's ZGC seconds (a cycle counted whole in the step
it began), the share of the server's CPU its collector's threads and its VM thread took over the ladder's steps (cpu.csv's
server_gc and server_vm; blank in a run from before those columns), the milliseconds VM operations ran in the ladder (JFR's
jdk.ExecuteVMOperation: the safepoints, and the handshakes with every thread that ZGC's cycles ask for), and the capacity per
CPU read off it (the verdict's, curve.of_pass's served_per_cpu); with --server, how closely each of those ranks the passes as
the capacity does.
"""

import sys

import pandas as pd

from labanalysis.cli import one_line, runs_parser
from labanalysis.curve import curve
from labanalysis.folder import repeats
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown

CYCLES = ("gc_major_cycle_s", "gc_minor_cycle_s")
STALL = "allocation_stall_ms"
VM_OPERATION = "vm_operation_ms"


def in_curve(jfr: pd.DataFrame) -> pd.DataFrame:
    """The series' rows of the curve's steps, as curve.py names them (a step at a rate, a search's slot), with the phase in
    which each settles (`-to-` before the rate or slot)."""
    steps = jfr["phase"].str.replace("-to-", "-at-", n=1, regex=False).str.replace("-at-search-", "-search-", regex=False)
    return jfr[steps.str.match(curve.STEP_PHASE) | steps.str.match(curve.SEARCH_SLOT)]


def per_pass(folder: str, server: str | None) -> list[dict]:
    run = load_run(folder)
    rows = []
    for each, pass_, base in repeats.each_pass([run]):
        if server and pass_.server != server:
            continue
        steps = in_curve(pass_.jfr)
        cycles = steps[steps["metric"].isin(CYCLES)]
        stalls = steps[steps["metric"] == STALL]["value"].astype(float)
        capacities = curve.of_pass(each, pass_, base)
        ladders = pd.DataFrame(curve.step_rows(each, pass_))
        row = {
            "run": run.folder.name,
            "pass": pass_.name,
            "ZGC cycles begun": len(cycles),
            "their seconds": round(cycles["value"].astype(float).sum(), 1),
            "longest (s)": round(cycles["value"].astype(float).max(), 1) if len(cycles) else 0.0,
            "allocation stalls": len(stalls),
            "stalled (s)": round(stalls.sum() / 1000, 1),
        }
        for endpoint in curve.ENDPOINTS:
            ladder = cycles[cycles["phase"].str.startswith(f"{endpoint}-")]
            row[f"/{endpoint}: ZGC s"] = round(ladder["value"].astype(float).sum(), 1)
            steps_of = ladders[ladders["endpoint"] == endpoint] if not ladders.empty else ladders
            used = steps_of["server_cores"].sum() if not steps_of.empty else float("nan")
            for column, name in (("server_gc_cores", "collector's share"), ("server_vm_cores", "VM thread's share")):
                taken = steps_of[column].sum(min_count=1) if not steps_of.empty else float("nan")
                row[f"/{endpoint}: {name}"] = round(taken / used, 3) if used > 0 else float("nan")
            operations = steps[(steps["metric"] == VM_OPERATION) & steps["phase"].str.startswith(f"{endpoint}-")]
            row[f"/{endpoint}: VM operations (ms)"] = round(operations["value"].astype(float).sum())
            row[f"/{endpoint}: capacity a core"] = round(capacities.get(endpoint, {}).get("served_per_cpu", float("nan")))
        rows.append(row)
    return rows


def rank_agreement(rows: pd.DataFrame) -> str:
    """Spearman's rho, over the passes shown, of each ladder's ZGC seconds and of its collector's share against its capacity a
    core: -1 where the passes in which ZGC ran longest (took the most) served the least a core, in order."""
    said = []
    for endpoint in curve.ENDPOINTS:
        for measure in ("ZGC s", "collector's share", "VM thread's share", "VM operations (ms)"):
            both = rows[[f"/{endpoint}: {measure}", f"/{endpoint}: capacity a core"]].dropna()
            if len(both) > 2:
                rho = both.rank().corr().iloc[0, 1]
                said.append(f"/{endpoint}: Spearman's rho of {measure} against capacity a core, {len(both)} passes: {rho:.2f}")
    return "\n".join(said)


def main() -> None:
    parser = runs_parser("gc-under-curve.py", "ZGC's cycles and allocation stalls in each pass's curve.", "[--server NAME]")
    parser.add_argument("--server", help="one server (its catalogue name); all where omitted")
    args = parser.parse_args()
    rows = pd.DataFrame([row for folder in args.runs for row in per_pass(folder, args.server)])
    print(markdown(rows))
    if args.server:
        print()
        print(rank_agreement(rows))


if __name__ == "__main__":
    sys.exit(one_line("gc-under-curve.py", main, RunFolderError))
