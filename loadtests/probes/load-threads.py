"""What a server holds in its steady /json phase beyond what its idle sockets held: its threads and open files there (proc.csv, the
phase's median) against the last socket step's plateau (memory.plateaus), pass by pass. make advise draws both counts from the
socket steps' line; a server that gains threads or files once load starts holds them in the phase and not in the line.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/load-threads.py results/<run> ...

Prints a Markdown table, a row per compared pass: the plateau's and the phase's threads and open files, and the phase's over the
plateau's.
"""

import sys

import pandas as pd

from labanalysis.bench import cpu, memory
from labanalysis.cli import one_line, runs_parser
from labanalysis.folder import repeats
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown


def rows(runs) -> pd.DataFrame:
    found = []
    for run, server, base in repeats.each_pass(runs):
        plateaus = memory.plateaus(server)
        proc = server.proc[server.proc["phase"] == cpu.PHASE] if not server.proc.empty else server.proc
        if plateaus.empty or proc.empty:
            continue
        last = plateaus.iloc[-1]
        row = {"run": run.folder.name, "pass": base["pass"], "server": server.server, "sockets": int(last["open_sockets"])}
        for column, words in (("threads", "threads"), ("fds", "open files")):
            row[f"{words}: last step"] = round(float(last[column]), 1)
            row[f"{words}: /json phase"] = float(proc[column].median())
            row[f"{words}: gained"] = round(row[f"{words}: /json phase"] - row[f"{words}: last step"], 1)
        found.append(row)
    return pd.DataFrame(found)


def main() -> None:
    parser = runs_parser("load-threads.py", __doc__.splitlines()[0])
    args = parser.parse_args()
    print(markdown(rows([load_run(r) for r in args.runs])))


if __name__ == "__main__":
    sys.exit(one_line("load-threads.py", main, RunFolderError))
