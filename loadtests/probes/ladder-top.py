"""Whether each ladder's top step filled the server's CPU budget, so that a capacity per CPU could be read below it: for each
pass of each run and each endpoint, the top step's offered and achieved rate, the server's cores and how busy its budget was,
and how busy the load's CPU was (curve.per_step, as the verdict reads them). A capacity per CPU is read only at a step that
filled the budget (curve_verdicts.served_when_full); where the top filled none, the ladder ends under what the server serves.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/ladder-top.py results/<run> [results/<run> ...]

Prints a Markdown table, a row per pass and endpoint.
"""

import sys

import pandas as pd

from labanalysis.cli import one_line
from labanalysis.curve import curve
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown


def main(folders: list[str]) -> None:
    steps = curve.per_step([load_run(folder) for folder in folders])
    top = steps.loc[steps.groupby(["run folder", "pass", "endpoint"], sort=False)["offered_per_s"].idxmax()]
    table = pd.DataFrame(
        {
            "run": top["run folder"],
            "pass": top["pass"],
            "endpoint": top["endpoint"],
            "top step (req/s)": top["offered_per_s"].round(0),
            "achieved (req/s)": top["achieved_per_s"].round(0),
            "server cores": top["server_cores"].round(3),
            "server busy (of its budget)": top["server_busy"].round(2),
            "load busy": top["load_busy"].round(2),
        }
    )
    print(markdown(table))


if __name__ == "__main__":
    sys.exit(one_line("ladder-top.py", lambda: main(sys.argv[1:]), RunFolderError))
