"""make advise held to a known truth: its lines taken to the run's own shape (its idle sockets and its steady /json rate), pass by
pass, against what the run's steady /json phase measured at that shape."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import stats
from ..bench import cpu
from ..folder import catalogue, repeats
from ..folder.run import Run, ServerRun
from . import compare
from .advise import CPU_STDERR, Workload, need_shown, per_pass

# The needs a run measured itself at its own shape, in its steady /json phase (cpu.PHASE): the server's mean cores (cpu.csv) less
# its JIT compilers' (which advise's line leaves out, for a server long up), and its threads and open files (proc.csv, the phase's
# median). Memory is not among them: the phase's RSS and heap hold what the collector has not yet taken back, where advise's lines
# run through snapshots taken after a full GC.
CHECKED = ("CPU (cores)", "threads", "open files")
# How many standard errors apart a pass's line and its steady phase may be and agree: the two-sided 95% of a normal.
AGREE_WITHIN_STDERRS = 1.96
CHECK_COLUMNS = ["server", "label", "need", "make advise", "measured", "measured over advise", "agrees"]


def own_shape(run: Run) -> Workload:
    """The workload `run` itself held in its steady /json phase: its idle sockets, its /json rate with no downstream wait, and the
    connections k6 opened to /json before it ended (load_connections; the median over the compared passes)."""
    found = compare.settings(run)
    opened = [load_connections(server) for server in repeats.compared(run) if catalogue.arm_of(server.server) is None]
    connections = float(np.median(opened)) if opened else 0
    return Workload(int(found.get("idleSockets") or 0), float(found.get("jsonRatePerSecond") or 0), 0, connections)


def load_connections(server: ServerRun, endpoint: str = "json") -> int:
    """The connections k6 opened to `endpoint` by the end of its steady phase: its requests of the endpoint's warm-up and steady
    phase that had to connect (k6's http_req_connecting above 0). k6's VUs keep theirs open, idle, to the pass's end, so the server
    holds a file for each through the phase; 2,000 in a local run, one a VU of the warm-up's ramp. vegeta's pool is not among
    them: it opens as the pass's load starts, so the socket steps' line holds it already."""
    samples = server.k6_samples
    tags = {f"endpoint={endpoint}-warmup", f"endpoint={endpoint}"}
    connecting = samples[(samples["metric_name"] == "http_req_connecting") & samples["extra_tags"].isin(tags)]
    return int((connecting["metric_value"] > 0).sum())


def measured_at_own_shape(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass (arms left out): each of CHECKED as the pass measured it in its steady /json phase."""
    rows = []
    for _, server, base in repeats.each_pass(runs):
        if catalogue.arm_of(server.server) is not None:
            continue
        cores = cpu.server_less_jit(cpu.in_phase(server)).dropna() if not server.cpu.empty else pd.Series(dtype=float)
        proc = server.proc[server.proc["phase"] == cpu.PHASE] if not server.proc.empty else server.proc
        rows.append(
            {
                **base,
                "CPU (cores)": float(cores.mean()) if len(cores) else math.nan,
                CPU_STDERR: float(cores.std() / math.sqrt(len(cores))) if len(cores) > 1 else math.nan,
                "threads": float(proc["threads"].median()) if len(proc) else math.nan,
                "open files": float(proc["fds"].median()) if len(proc) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def checked(runs: list[Run]) -> pd.DataFrame:
    """make advise held to a known truth: its needs for the first run's own shape (own_shape), pass by pass along the lines, against
    what the passes measured at that shape (CHECK_COLUMNS). Threads and open files agree where the two ranges across passes overlap
    (stats.separated). The CPU is judged pass by pass (cpu_agrees): its line and the phase's mean are two estimates from one pass's
    seconds, each a few thousandths of a core precise, so it is their difference that says whether the line runs through the
    phase, where the range across passes is the host's drift from pass to pass. Empty where the run has no steady /json phase to
    check against."""
    shape = own_shape(runs[0])
    predicted, measured = per_pass(runs, shape), measured_at_own_shape(runs)
    if predicted.empty or measured.empty or not shape.rate_per_s:
        return pd.DataFrame(columns=CHECK_COLUMNS)
    rows = []
    for (server, label), group in predicted.groupby(["server", "label"], sort=False):
        there = measured[measured["server"] == server]
        for need in CHECKED:
            said, found = stats.across(group[need]), stats.across(there[need])
            ratio = found.median / said.median if said.passes and found.passes and said.median else math.nan
            if not (said.passes and found.passes):
                agrees = "not measured"
            elif need == "CPU (cores)":
                agrees = cpu_agrees(group, there)
            else:
                agrees = _agrees(stats.separated(said, found))
            rows.append(
                {
                    "server": server,
                    "label": label,
                    "need": need,
                    "make advise": need_shown(said),
                    "measured": need_shown(found),
                    "measured over advise": "" if math.isnan(ratio) else f"{ratio:.2f}x",
                    "agrees": agrees,
                }
            )
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def cpu_agrees(predicted: pd.DataFrame, measured: pd.DataFrame) -> str:
    """Whether, in every pass, advise's line at the rate and the steady phase's mean cores lie within AGREE_WITHIN_STDERRS of the
    standard error of their difference (the two errors in quadrature), in words with the passes that did."""
    both = predicted.merge(measured, on="pass", suffixes=(" said", " found"))
    difference = (both["CPU (cores) found"] - both["CPU (cores) said"]).abs()
    stderr = np.sqrt(both[f"{CPU_STDERR} said"] ** 2 + both[f"{CPU_STDERR} found"] ** 2)
    judged = stderr.notna() & difference.notna()
    within = int((difference[judged] <= AGREE_WITHIN_STDERRS * stderr[judged]).sum())
    if not judged.any():
        return "not measured"
    band = f"within {AGREE_WITHIN_STDERRS} standard errors of their difference in {within} of {int(judged.sum())} passes"
    return f"yes: {band}" if within == judged.sum() else f"no: {band}"


def _agrees(separated: str) -> str:
    """stats.separated's words as an answer to whether advise agrees with the measurement."""
    if separated == stats.ONE_PASS:
        return "one pass: cannot tell"
    return "no: the ranges across passes are apart" if separated.startswith("apart") else "yes: the ranges across passes overlap"
