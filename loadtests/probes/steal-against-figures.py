"""Whether the hypervisor's steal moved a pass's figures: per pass of the runs given, the share of its seconds in which the
hypervisor took over cpu.HOST_TOOK_CORES of the host (cpu.csv's `steal`), beside each verdict figure's distance from its
server's median over all the passes given (the natural log of the pass's figure over that median); then, per figure, the
rank correlation (Spearman) of that distance, unsigned, with the share. A rule that leaves out the passes the host took
(cpu.host_took) is borne out where the timed figures' distance grows with the share and memory's does not.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/steal-against-figures.py results/<run> ...

Prints two Markdown tables: the passes, then the correlations.
"""

import math
import sys

import numpy as np
import pandas as pd

from labanalysis.bench import cpu
from labanalysis.cli import one_line, runs_parser
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown
from labanalysis.verdict import perpass

FIGURES = (perpass.JSON_CAPACITY, perpass.DASHBOARD_CAPACITY, perpass.CPU_LESS_JIT, perpass.JSON_WIRE_P99, perpass.HELD)


def passes(folders: list[str]) -> pd.DataFrame:
    """A row per pass and figure: run, round, pass, server, the share of seconds taken, the figure's value and distance."""
    rows = []
    for folder in folders:
        run = load_run(folder)
        cpus = cpu.host_cpus(run)
        table = perpass.table([run])
        for (name, server), found in table.groupby(["pass", "server"], sort=False):
            steal = run.server(name).cpu["steal"].dropna() * cpus
            share = float((steal > cpu.HOST_TOOK_CORES).mean()) if len(steal) else math.nan
            for figure in FIGURES:
                value = found.loc[found["figure"] == figure.key, "value"]
                rows.append(
                    {
                        "run": run.folder.name,
                        "round": int(found["round"].iloc[0]),
                        "pass": name,
                        "server": server,
                        "share taken": share,
                        "figure": figure.key,
                        "value": float(value.iloc[0]) if len(value) else math.nan,
                    }
                )
    frame = pd.DataFrame(rows)
    frame["distance"] = frame.groupby(["server", "figure"])["value"].transform(lambda x: np.log(x / x.median()))
    return frame


def correlations(frame: pd.DataFrame) -> pd.DataFrame:
    """Per figure: the Spearman correlation of the unsigned distance with the share taken, over the passes that measured it."""
    rows = []
    for figure in FIGURES:
        found = frame[(frame["figure"] == figure.key) & frame["distance"].notna()]
        rho = found["share taken"].corr(found["distance"].abs(), method="spearman") if len(found) > 2 else math.nan
        rows.append({"figure": figure.label, "passes": len(found), "Spearman's rho, |distance| against the share taken": round(rho, 2)})
    return pd.DataFrame(rows)


def main() -> None:
    parser = runs_parser("steal-against-figures.py", "Whether the hypervisor's steal moved a pass's figures.")
    args = parser.parse(sys.argv[1:])
    if isinstance(args, int):
        sys.exit(args)
    frame = passes(args.runs)
    wide = frame.pivot_table(index=["run", "round", "pass", "share taken"], columns="figure", values="distance", sort=False)
    print(markdown(wide.round(2).reset_index().rename(columns=perpass.label)))
    print()
    print(markdown(correlations(frame)))


if __name__ == "__main__":
    sys.exit(one_line("steal-against-figures.py", main, RunFolderError))
