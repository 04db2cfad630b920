"""What moved each bench run's /dashboard capacity per CPU: the connections vegeta-steps dialled again in each step, and how the
verdict's ratios come out of the same steps under other estimators.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/dashboard-capacity.py results/<run> [results/<run> ...]

Prints two Markdown tables:
- each Jetty server's top /dashboard steps, pass by pass: the connections the pool dialled again in the step (vegeta-steps.log's
  `ended` lines count them since the pool opened), the requests that failed, and what a core served (achieved / server cores);
- every server's top /dashboard step, pass by pass: what it answered a second, the connections dialled again, the requests that
  failed, and vegeta's p99 (at the request timeout, requests were given up on);
- for each estimator of a pass's capacity, each run's median over rounds of the three ratios the verdict reads (virtual threads
  and coroutines over platform threads on Jetty; Jetty's coroutines over Ktor's), and the highest run's over the lowest.
"""

import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from labanalysis import stats
from labanalysis.cli import one_line
from labanalysis.curve import curve, curve_verdicts
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown

ENDED = re.compile(r"ended (\S+) (\d+) (\d+)")
# The verdict's three ratios, each (engine, model) over (engine, model), as servers.json names them.
RATIOS = {
    "virtual / platform": (("jetty", "virtual"), ("jetty", "platform")),
    "coroutines / platform": (("jetty", "coroutine"), ("jetty", "platform")),
    "Jetty / Ktor coroutines": (("jetty", "coroutine"), ("ktor-netty", "coroutine")),
}


def dialled_by_step(pass_folder: Path) -> dict[str, int]:
    """{attack: connections dialled again during it}: the log's counts are since the pool opened, so each is the step's own."""
    log = pass_folder / "vegeta" / "vegeta-steps.log"
    counts = [(m[1], int(m[3])) for m in map(ENDED.match, log.read_text().splitlines() if log.is_file() else []) if m]
    return {name: total - (counts[i - 1][1] if i else 0) for i, (name, total) in enumerate(counts)}


def line(steps: pd.DataFrame) -> float:
    """What a core serves by the least-squares line over `steps`: 1 / its slope."""
    fit = stats.capacity_fit(steps["achieved_per_s"], steps["server_cores"])
    return 1e6 / fit.us_per_request if fit.us_per_request > 0 else math.nan


def theil_sen(steps: pd.DataFrame) -> float:
    """What a core serves by the median of the slopes between every two steps (Theil-Sen), which one odd step moves little."""
    x, y = steps["achieved_per_s"].to_numpy(float), steps["server_cores"].to_numpy(float)
    slopes = [(y[j] - y[i]) / (x[j] - x[i]) for i in range(len(x)) for j in range(i + 1, len(x)) if x[j] != x[i]]
    slope = float(np.median(slopes)) if slopes else math.nan
    return 1 / slope if slope > 0 else math.nan


def estimators(steps: pd.DataFrame) -> dict[str, float]:
    judged = curve_verdicts.judged_with_cpu(steps)
    held = judged[judged["sustained"].astype(bool)]
    whole = judged[(judged["achieved_per_s"] >= 0.99 * judged["offered_per_s"]) & (judged["failed"] == 0)]
    return {
        "served where full (the lab's)": curve_verdicts.served_when_full(judged),
        "line over the steps held": line(held),
        "Theil-Sen over the steps held": theil_sen(held),
        "line over the steps answered whole": line(whole),
        "all the steps answered whole, all-in": whole["achieved_per_s"].sum() / whole["server_cores"].sum() if len(whole) else math.nan,
    }


def main(folders: list[str]) -> None:
    churn, tops, passes = [], [], []
    for folder in folders:
        run = load_run(folder)
        steps = curve.per_step([run])
        steps = steps[steps["endpoint"] == "dashboard"]
        for server in run.servers:
            mine = steps[steps["pass"] == server.folder.name]
            if mine.empty:
                continue
            dialled = dialled_by_step(server.folder)
            engine, model = mine["engine"].iloc[0], mine["model"].iloc[0]
            passes.append({"run": run.folder.name, "server": (engine, model), "round": server.repeat, **estimators(mine)})
            last = mine[mine["offered_per_s"] == mine["offered_per_s"].max()].iloc[0]
            tops.append(
                {
                    "run": run.folder.name,
                    "pass": server.folder.name,
                    "offered (req/s)": last["offered_per_s"],
                    "answered (req/s)": round(last["achieved_per_s"], 1),
                    "dialled again": dialled.get(f"dashboard-at-{last['offered_per_s']}", math.nan),
                    "failed": last["failed"],
                    "vegeta p99 (ms)": round(last["load_p99_ms"], 0),
                }
            )
            top = mine[mine["offered_per_s"] >= 1000]
            for row, served in zip(top.itertuples(), curve_verdicts.served_a_core(top), strict=True):
                if engine == "jetty" and model != "platform":
                    churn.append(
                        {
                            "run": run.folder.name,
                            "pass": server.folder.name,
                            "offered (req/s)": row.offered_per_s,
                            "dialled again": dialled.get(f"dashboard-at-{row.offered_per_s}", math.nan),
                            "failed": row.failed,
                            "served a core (req/s)": round(served),
                        }
                    )
    print(markdown(pd.DataFrame(churn).sort_values(["offered (req/s)", "dialled again"])))
    print()
    print(markdown(pd.DataFrame(tops).sort_values(["pass", "run"])))
    print()
    frame = pd.DataFrame(passes)
    rows = []
    for estimator in [c for c in frame.columns if c not in ("run", "server", "round")]:
        wide = frame.pivot_table(index=["run", "round"], columns="server", values=estimator)
        for ratio, (over, under) in RATIOS.items():
            by_run = (wide[over] / wide[under]).groupby("run").median()
            rows.append(
                {
                    "estimator": estimator,
                    "ratio": ratio,
                    **{r: f"{v:.2f}" for r, v in by_run.items()},
                    "highest / lowest": f"{by_run.max() / by_run.min():.2f}",
                }
            )
    print(markdown(pd.DataFrame(rows)))


if __name__ == "__main__":
    sys.exit(one_line("dashboard-capacity.py", lambda: main(sys.argv[1:]), RunFolderError))
