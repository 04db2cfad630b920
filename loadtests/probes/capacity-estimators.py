"""Which reading of a ladder's steps repeats best as a server's capacity per CPU, over pairs of runs: for each server and
endpoint, B's median over A's, across passes, of each estimator, and how many of them fell within 15%.

The estimators, each read from one pass's ladder (its judged steps, where some judged step filled the server's budget):
- served_when_full: the lab's own (curve_verdicts.served_when_full), the most a core served in any judged step;
- most_when_full: the most a core served among the steps that filled the budget;
- first_full: what a core served in the lowest step that filled it;
- median_full: the median, over the steps that filled it, of what a core served;
- pooled_full: requests over cores, summed over the steps that filled it;
- top: what a core served in the highest judged step;
- pooled_top_two: requests over cores, summed over the two highest judged steps.

Usage, from the repository's root, with the lab's Python:
    PYTHONPATH=analysis .tools/venv/bin/python loadtests/probes/capacity-estimators.py results/<A>,results/<B> ...

Prints two Markdown tables: B / A by server, endpoint and estimator, then how many of each pair's figures repeated.
dashboard-capacity.py asks the other question of one run's steps: how the verdict's ratios of servers come out under other
estimators.
"""

import math
import sys
from pathlib import Path

import pandas as pd

from labanalysis.cli import one_line, run_pairs
from labanalysis.curve import curve, curve_verdicts
from labanalysis.folder.run import RunFolderError, load_run
from labanalysis.markdown import markdown

REPEATED_WITHIN = 1.15


def pooled(steps: pd.DataFrame) -> float:
    """Requests over cores, summed over `steps`."""
    return float(steps["achieved_per_s"].sum() / steps["server_cores"].sum())


def estimates(ladder: pd.DataFrame) -> dict[str, float]:
    """Each estimator's reading of one pass's ladder; none where no judged step filled the server's budget."""
    judged = curve_verdicts.judged_with_cpu(ladder).sort_values("offered_per_s")
    full = curve_verdicts.filled_budget(judged)
    if full.empty:
        return {}
    served_full = curve_verdicts.served_a_core(full)
    return {
        "served_when_full": curve_verdicts.served_when_full(ladder),
        "most_when_full": float(served_full.max()),
        "first_full": float(served_full.iloc[0]),
        "median_full": float(served_full.median()),
        "pooled_full": pooled(full),
        "top": float(curve_verdicts.served_a_core(judged).iloc[-1]),
        "pooled_top_two": pooled(judged.tail(2)),
    }


def main() -> None:
    pairs = run_pairs("capacity-estimators.py", "Which capacity-per-CPU estimator repeats best over pairs of runs.")
    rows = []
    for a, b in pairs:
        for side, folder in (("A", a), ("B", b)):
            steps = curve.per_step([load_run(folder)])
            for (server, endpoint, _pass), ladder in steps.groupby(["server", "endpoint", "pass"]):
                for estimator, value in estimates(ladder).items():
                    rows.append({"pair": Path(a).name, "side": side, "server": server, "endpoint": endpoint, "estimator": estimator, "value": value})
    medians = pd.DataFrame(rows).groupby(["pair", "server", "endpoint", "estimator", "side"])["value"].median().unstack("side")
    ratios = (medians["B"] / medians["A"]).unstack("estimator")
    print(markdown(ratios.round(2), index=True))
    print()
    repeated = ratios.apply(lambda column: column.map(lambda r: abs(math.log(r)) <= math.log(REPEATED_WITHIN)))
    print(markdown(repeated.groupby(level="pair").sum(), index=True))


if __name__ == "__main__":
    sys.exit(one_line("capacity-estimators.py", main, RunFolderError))
