"""Where a server's CPU went in a sweep's steps, from the stacks JFR sampled (`make sweep JFR_PROFILE=on`, which folds them
into each pass's `profile-<workload>-<C>.cpu.folded`; lab.bench.collect.JfrProfile): the CPU a request by the library whose
code ran, and the innermost methods, as µs a request, the median across passes.

A sample is SAMPLE_PERIOD_MS of one Java thread's CPU (JDK 25's jdk.CPUTimeSample), so a stack's samples times the period
is the CPU it used, and over the requests the step's wrk run sent, the CPU a request. The JDK's and Kotlin's standard
library's frames are charged to the library that called them, the innermost frame outside them: `HashMap.get` under
Ktor's client is the client's. The JVM's own threads (compilers, GC) are not sampled; the sampled CPU beside the server's
whole CPU a request (sweep.csv's) says how much that leaves out.

    python -m labanalysis.sweep.cpu_profile results/<time>-sweep [--top 12]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import stats
from ..folder import catalogue, sweepfolder
from ..stats import numbers
from . import sweep

# JfrProfile's: a sample every 10 ms of a thread's CPU time, and its marker stacks.
SAMPLE_PERIOD_US = 10_000
LOST = "[samples lost]"
MARKERS = ("[truncated]",)
NO_STACK = "[no stack]"

# Frames charged to their caller: the JDK's and Kotlin's standard library's.
RUNTIME_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.")

# Libraries by their classes' prefix, the first that matches; a class under none is named by its package's first two parts.
LIBRARIES = (
    ("io.ktor.client.engine.cio.", "Ktor client: CIO engine"),
    ("io.ktor.client.", "Ktor client"),
    ("io.ktor.server.netty.", "Ktor server: Netty engine"),
    ("io.ktor.server.", "Ktor server"),
    ("io.ktor.network.", "Ktor sockets"),
    ("io.ktor.utils.io.", "Ktor byte channels"),
    ("io.ktor.", "Ktor, other"),
    ("io.netty.", "Netty"),
    ("kotlinx.coroutines.", "kotlinx.coroutines"),
    ("org.eclipse.jetty.", "Jetty"),
    ("okhttp3.", "OkHttp"),
    ("okio.", "OkHttp"),
    ("org.apache.hc.", "Apache HttpClient 5"),
    ("lab.", "the lab's code"),
)
RUNTIME_ONLY = "the JDK alone (no library above it in the stack)"


@dataclass(frozen=True)
class StepProfile:
    """One step's folded CPU samples, with what it is divided by."""

    pass_: int
    server: str
    workload: str
    concurrency: int
    requests: int
    server_cpu_s: float
    stacks: dict[str, int]


def parse_folded(text: str) -> dict[str, int]:
    """`stack count` lines, a stack's frames joined by `;`, into stack -> count (a stack seen twice is summed)."""
    stacks: Counter[str] = Counter()
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            stacks[stack] += int(count)
    return dict(stacks)


def library_of_class(name: str) -> str:
    for prefix, library in LIBRARIES:
        if name.startswith(prefix):
            return library
    return ".".join(name.split(".")[:2])


def library_of(stack: str) -> str:
    """The library charged with a stack: its innermost frame outside the JDK and Kotlin's standard library."""
    if stack == LOST:
        return LOST
    frames = [f for f in stack.split(";")[1:] if f not in MARKERS]
    if frames == [NO_STACK]:
        return NO_STACK
    for frame in reversed(frames):
        if not frame.startswith(RUNTIME_PREFIXES):
            return library_of_class(frame.rsplit(".", 1)[0])
    return RUNTIME_ONLY


def innermost(stack: str) -> str:
    """A stack's innermost frame, `class.method`, the code that was on the CPU."""
    return stack if stack == LOST else stack.rsplit(";", 1)[-1]


def family_of(stack: str) -> str:
    return LOST if stack == LOST else stack.split(";", 1)[0]


def load(folder: str | Path) -> tuple[sweepfolder.SweepRun, list[StepProfile]]:
    """The sweep and each step's CPU profile its pass folder holds."""
    run = sweepfolder.load(folder)
    return run, profiles_of(run)


def profiles_of(run: sweepfolder.SweepRun) -> list[StepProfile]:
    """Each step's CPU profile its pass folder holds; a step without one is left out."""
    profiles = []
    for row in run.steps.to_dict("records"):
        pass_folder = run.folder / f"{row['server']}-{row['workload']}-pass{row['pass']}"
        path = pass_folder / f"profile-{row['workload']}-{row['concurrency']}.cpu.folded"
        if path.is_file():
            profiles.append(
                StepProfile(
                    int(row["pass"]),
                    row["server"],
                    row["workload"],
                    int(row["concurrency"]),
                    int(row["requests"]),
                    float(row["server_cpu_s"]),
                    parse_folded(path.read_text()),
                )
            )
    return profiles


def per_request(profiles: list[StepProfile], key) -> pd.DataFrame:
    """Per server, workload, concurrency and key (a function of a stack): the sampled CPU a request (µs), the median across
    passes with low, high and passes. A pass in which a key had no sample counts as 0 for it."""
    rows = []
    for p in profiles:
        if p.requests <= 0:
            continue
        by_key: Counter[str] = Counter()
        for stack, samples in p.stacks.items():
            by_key[key(stack)] += samples
        rows += [(p.pass_, p.server, p.workload, p.concurrency, k, n * SAMPLE_PERIOD_US / p.requests) for k, n in by_key.items()]
    columns = ["server", "workload", "concurrency", "key", "µs per request", "low", "high", "passes"]
    if not rows:
        return pd.DataFrame(columns=columns)
    long = pd.DataFrame(rows, columns=["pass", "server", "workload", "concurrency", "key", "us"])
    wide = long.pivot_table(index=["server", "workload", "concurrency", "pass"], columns="key", values="us", aggfunc="sum", fill_value=0.0)
    out = []
    for (server, workload, concurrency), group in wide.groupby(level=["server", "workload", "concurrency"], sort=False):
        # A key no pass of this step sampled is another step's (the pivot spans them all): no row.
        for k in group.columns[(group > 0).any()]:
            value = stats.across(group[k])
            out.append([server, workload, concurrency, k, value.median, value.low, value.high, value.passes])
    return pd.DataFrame(out, columns=columns).sort_values(
        ["server", "workload", "concurrency", "µs per request"], ascending=[True, True, True, False]
    )


def sampled_against_whole(profiles: list[StepProfile]) -> pd.DataFrame:
    """Per server, workload and concurrency: the sampled CPU a request and the server's whole CPU a request (µs), the medians.
    A lost sample was CPU used, its stack not kept: it counts."""
    rows = [
        (p.server, p.workload, p.concurrency, sum(p.stacks.values()) * SAMPLE_PERIOD_US / p.requests, 1e6 * p.server_cpu_s / p.requests)
        for p in profiles
        if p.requests > 0
    ]
    frame = pd.DataFrame(rows, columns=["server", "workload", "concurrency", "sampled", "whole"])
    return frame.groupby(["server", "workload", "concurrency"], sort=False).median().reset_index()


def families_against_proc(run: sweepfolder.SweepRun, profiles: list[StepProfile]) -> pd.DataFrame:
    """Per server, workload, concurrency and thread family: the sampled CPU a request (µs) beside what /proc counted for the
    family (threads.csv, sweep.cpu_by_thread_family), the medians across passes, and sampled over counted. The two measure the
    same CPU two ways, so a ratio far from 1 says the sampler missed or over-counted a family (the JVM's own threads, which JFR
    does not sample, have no sampled figure)."""
    columns = ["server", "workload", "concurrency", "family", "sampled", "counted", "sampled / counted"]
    sampled = per_request(profiles, family_of)
    counted = sweep.cpu_by_thread_family(run)
    if sampled.empty or counted.empty:
        return pd.DataFrame(columns=columns)
    keys = ["server", "workload", "concurrency", "family"]
    joined = sampled.rename(columns={"key": "family", "µs per request": "sampled"})[[*keys, "sampled"]].merge(
        counted.rename(columns={"µs per request": "counted"})[[*keys, "counted"]], on=keys, how="inner"
    )
    return joined.assign(**{"sampled / counted": joined["sampled"] / joined["counted"].where(joined["counted"] > 0)})[columns]


# The libraries a table across servers names, the largest first; the rest are summed as one.
LIBRARIES_NAMED = 7
OTHER_LIBRARIES = "other libraries"


def library_table(profiles: list[StepProfile], workload: str) -> pd.DataFrame:
    """Server and C down, the workload's LIBRARIES_NAMED largest libraries across (by their CPU a request summed over its
    steps), the rest summed as OTHER_LIBRARIES: each library's sampled CPU a request (µs) as `median [lowest, highest]`."""
    values = per_request([p for p in profiles if p.workload == workload], library_of)
    if values.empty:
        return pd.DataFrame()
    named = values.groupby("key")["µs per request"].sum().nlargest(LIBRARIES_NAMED).index.tolist()
    return sweep.named_across(values, "key", named, OTHER_LIBRARIES)


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub table, its first column left and the others right."""
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def markdown(run: sweepfolder.SweepRun, profiles: list[StepProfile], top: int) -> str:
    if not profiles:
        return f"{run.folder}: no step has a CPU profile; make the sweep with JFR_PROFILE=on\n"

    def shown(r) -> str:
        return numbers.shown(stats.Across(r["µs per request"], r["low"], r["high"], int(r["passes"])))

    whole = sampled_against_whole(profiles).set_index(["server", "workload", "concurrency"])
    parts = [
        f"# Where the CPU went: {run.folder.name}\n\n",
        "Sampled by JFR over each step's window, a sample every 10 ms of a Java thread's CPU; µs a request, the median "
        "[lowest, highest] across passes. The JDK's and Kotlin's own frames are charged to the library that called them.\n",
    ]
    libraries = per_request(profiles, library_of)
    methods = per_request(profiles, innermost)
    families = families_against_proc(run, profiles)
    keys = ["server", "workload", "concurrency"]
    for step, group in libraries.groupby(keys, sort=False):
        server, workload, concurrency = step
        sampled, all_cpu = whole.loc[step]
        parts += [
            f"\n## {catalogue.label(server)}, /{workload} at C={concurrency:,}\n\n",
            f"Sampled {sampled:,.0f} µs a request of the server's {all_cpu:,.0f} (the rest: the JVM's own threads, and what the sampler missed).\n\n",
            _table(["library", "µs a request"], [[r["key"], shown(r)] for _, r in group.iterrows()]),
        ]
        check = families[(families[keys] == step).all(axis=1)]
        if not check.empty:
            rows = [[r["family"], f"{r['sampled']:,.0f}", f"{r['counted']:,.0f}", f"{r['sampled / counted']:.2f}"] for _, r in check.iterrows()]
            parts += [
                "\nThe sampler against /proc, by thread family (µs a request, medians):\n\n",
                _table(["family", "sampled", "counted", "sampled / counted"], rows),
            ]
        inner = methods[(methods[keys] == step).all(axis=1)].head(top)
        parts += [
            f"\nThe {top} innermost methods that used the most:\n\n",
            _table(["method", "µs a request"], [[f"`{r['key']}`", shown(r)] for _, r in inner.iterrows()]),
        ]
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labanalysis.sweep.cpu_profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="a make sweep folder, made with JFR_PROFILE=on")
    parser.add_argument("--top", type=int, default=12, help="innermost methods shown a step")
    args = parser.parse_args(argv)
    try:
        run, profiles = load(args.folder)
    except sweepfolder.SweepFolderError as e:
        print(f"cpu_profile: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(markdown(run, profiles, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
