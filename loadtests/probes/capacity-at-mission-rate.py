"""Whether a server's capacity per CPU can be read off its CPU per request at the mission's steady rate, which repeats from
run to run where the capacity read at the server's limit does not: for each pair of runs and server, the /json capacity per
CPU the full step measured (perpass.JSON_CAPACITY), the capacity a core would have at the steady rate's CPU per request
(perpass.CPU and CPU_LESS_JIT: a million µs over the µs a request), each run's median over its passes, and B / A of each.

The known truth the implied capacity is held to: a core served at least what the full step's closed loop measured on it, so
an estimator that reads under that (its median over the measured one's, "of measured", below 1) reads the wrong regime,
whatever its repeat.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/capacity-at-mission-rate.py results/<A>,results/<B> ...

Prints three Markdown tables. First, a row per pair and server. Then each run's median over its passes of the server's CPU a
/json request in each step of its ladder, the full step last, which tells why the two readings differ. Then, per server,
the spread of the measured capacity per CPU on each endpoint from pass to pass within a run (the SD of its log, pooled over
the runs), and what that spread allows: the chance that two runs' medians of 3 passes fall within 15% of each other, and the
passes a run would need for 9 chances in 10 (passes drawn alike and apart, by simulation).
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from labanalysis.cli import one_line, run_pairs
from labanalysis.curve import curve
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown
from labanalysis.verdict import perpass

MICROSECONDS_A_SECOND = 1e6
REPEATED_WITHIN = 1.15
DRAWS = 20_000
LARGEST_PASSES = 61
ESTIMATORS = {
    "measured": perpass.JSON_CAPACITY,
    "at steady rate": perpass.CPU,
    "at steady rate, JIT apart": perpass.CPU_LESS_JIT,
}


def medians(passes: pd.DataFrame) -> pd.DataFrame:
    """Each server's median over its passes (perpass.table's rows) of each estimator, in req/s a core."""
    columns = {}
    for name, figure in ESTIMATORS.items():
        values = passes[passes["figure"] == figure.key].groupby("server")["value"].median()
        columns[name] = values if figure is perpass.JSON_CAPACITY else MICROSECONDS_A_SECOND / values
    return pd.DataFrame(columns)


def cost_by_step(folder: str) -> pd.DataFrame:
    """Per server, the median over its passes of the µs of its CPU a /json request answered, in each ladder step (by its
    offered rate) and in the full step."""
    steps = curve.per_step([load_run(folder)])
    steps = steps[steps["endpoint"] == "json"].assign(
        step=lambda s: s["offered_per_s"].map(lambda r: "full" if pd.isna(r) else f"{r:.0f}/s"),
        us=lambda s: MICROSECONDS_A_SECOND * s["server_cores"] / s["achieved_per_s"],
    )
    table = steps.groupby(["server", "step"], sort=False)["us"].median().unstack("step").round(1)
    return table.assign(run=Path(folder).name).reset_index()


def log_spread(runs: list[pd.DataFrame], figure: perpass.Figure) -> pd.Series:
    """Per server, the SD of the log of `figure` from pass to pass within a run, pooled over `runs`."""
    values = [p[p["figure"] == figure.key].set_index("server")["value"] for p in runs]
    logs = pd.concat([np.log(v).groupby("server").transform(lambda x: x - x.mean()) for v in values])
    degrees = sum(v.groupby("server").size() - 1 for v in values)
    return np.sqrt((logs**2).groupby("server").sum() / degrees)


def chance_repeated(sd_log: float, passes: int, rng: np.random.Generator) -> float:
    """The chance that two runs' medians of `passes` passes, each pass's log drawn with `sd_log`, are within REPEATED_WITHIN."""
    a, b = (np.median(rng.normal(0.0, sd_log, (DRAWS, passes)), axis=1) for _ in range(2))
    return float(np.mean(np.abs(a - b) <= np.log(REPEATED_WITHIN)))


def passes_needed(sd_log: float, rng: np.random.Generator) -> str:
    """The fewest passes (odd) for 9 chances in 10 of chance_repeated; past LARGEST_PASSES, said so."""
    for passes in range(3, LARGEST_PASSES + 1, 2):
        if chance_repeated(sd_log, passes, rng) >= 0.9:
            return str(passes)
    return f"over {LARGEST_PASSES}"


def main() -> None:
    pairs = run_pairs(
        "capacity-at-mission-rate.py", "A capacity per CPU read off the CPU per request at the mission's rate, against the one measured."
    )
    rows, every_run = [], []
    for pair in pairs:
        runs = [perpass.table([load_run(folder)]) for folder in pair]
        every_run += runs
        a, b = (medians(p) for p in runs)
        for server in a.index:
            row = {"pair": Path(pair[0]).name, "server": server}
            for name in ESTIMATORS:
                row[f"{name}, A"] = round(a.loc[server, name])
                row[f"{name}, B / A"] = round(b.loc[server, name] / a.loc[server, name], 2)
                if name != "measured":
                    row[f"{name}, of measured"] = round(a.loc[server, name] / a.loc[server, "measured"], 2)
            rows.append(row)
    print(markdown(pd.DataFrame(rows)))
    print()
    print(markdown(pd.concat([cost_by_step(folder) for pair in pairs for folder in pair])))
    print()
    rng = np.random.default_rng(0)
    spreads = []
    for figure in (perpass.JSON_CAPACITY, perpass.DASHBOARD_CAPACITY):
        for server, sd in log_spread(every_run, figure).items():
            spreads.append(
                {
                    "server": server,
                    "figure": figure.label,
                    "SD of log, pass to pass": round(sd, 3),
                    "chance, 3 passes": round(chance_repeated(sd, 3, rng), 2),
                    "passes for 9 in 10": passes_needed(sd, rng),
                }
            )
    print(markdown(pd.DataFrame(spreads)))


if __name__ == "__main__":
    sys.exit(one_line("capacity-at-mission-rate.py", main, RunFolderError))
