"""Repeats are the unit of evidence: which passes are compared, a figure's median across them with the interval across them, when two
servers are apart, and which run folders may be pooled as repeats of one another.

A pass is one server run: a fresh JVM under the run's profile. Within a pass, a figure's interval (a percentile's block bootstrap, a
slope's Student's t) says how precisely that one pass measured it; it says nothing of how another pass on the same host would come out,
which is what two runs disagreeing by more than their intervals showed (docs/JOURNAL.md). So every compared figure is a median across passes,
its interval is across passes, and "apart" is decided from those intervals only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pandas as pd

from ..stats import across
from . import catalogue
from .bench_manifest import collector_label
from .run import Run, ServerRun

# The columns that say which pass a per-pass row is of.
PASS_COLUMNS = ["run folder", "pass", "server", "label", "engine", "model", "jdk"]


# ---- which passes are compared --------------------------------------------------------------------


def compared(run: Run) -> list[ServerRun]:
    """The passes of a run that are compared: every repeat streamed by JFR that ended ok.

    A pass without the JFR stream measures the stream's cost, and a pass that failed measured
    something other than the profile; `left_out` names them.
    """
    return [s for s in run.servers if s.jfr_streaming and s.ok]


def jdk_of(run: Run):
    """The JDK feature release (25) a run's servers ran on, from its provenance."""
    return run.manifest.provenance.jdk.feature


def feature(version) -> str | None:
    return str(version).split(".")[0] if version is not None else None


def each_pass(runs: list[Run], passes: Callable[[Run], list[ServerRun]] = compared) -> Iterator[tuple[Run, ServerRun, dict]]:
    """Every pass of `runs` that `passes` picks (the compared ones unless told), with the PASS_COLUMNS that say which it is; runs on
    another JDK or collector than the first's are skipped."""
    jdk, collector = (jdk_of(runs[0]), runs[0].collector) if runs else (None, None)
    for run in runs:
        if jdk_of(run) != jdk or run.collector != collector:
            continue
        labels = {entry["server"]: entry["what it is"] for entry in catalogue.run_servers(run.catalogue, run.manifest.servers)}
        for server in passes(run):
            yield (
                run,
                server,
                {
                    "run folder": run.folder.name,
                    "pass": server.name,
                    "server": server.server,
                    "label": labels.get(server.server, server.server),
                    "engine": catalogue.engine_in(run.catalogue, server.server) or "?",
                    "model": catalogue.model_in(run.catalogue, server.server) or "?",
                    "jdk": jdk,
                },
            )


def left_out(runs: list[Run]) -> list[str]:
    """What the comparison leaves out of `runs`, one sentence each: runs on another JDK or collector than the first's, and failed
    passes."""
    notes = []
    jdk = jdk_of(runs[0]) if runs else None
    collector = runs[0].collector if runs else None
    for run in runs:
        if jdk_of(run) != jdk:
            notes.append(f"{run.folder.name}: ran on JDK {jdk_of(run)}, not {jdk}; not pooled with it")
            continue
        if run.collector != collector:
            notes.append(f"{run.folder.name}: ran on {collector_label(run.collector)}, not {collector_label(collector)}; not pooled with it")
            continue
        for s in run.servers:
            if s.jfr_streaming and not s.ok:
                notes.append(f"{run.folder.name}/{s.name}: {s.outcome.status}; its figures are not compared")
    return notes


def per_server(per_pass: pd.DataFrame, value: str = "value", by: tuple[str, ...] = ("figure",)) -> pd.DataFrame:
    """Per server (and each of `by`): `across` the passes' `value`s, as median, low, high and passes columns."""
    keys = ["server", "label", "engine", "model", *by]
    rows = []
    for key, group in per_pass.groupby(keys, sort=False):
        found = across(group[value])
        rows.append({**dict(zip(keys, key, strict=True)), "median": found.median, "low": found.low, "high": found.high, "passes": found.passes})
    return pd.DataFrame(rows, columns=[*keys, "median", "low", "high", "passes"])


# ---- pooling run folders (ALSO=) ------------------------------------------------------------------

# What runs pooled as repeats must share: a pass of another rate, profile, flag or JDK measured another thing. The profile is
# compared by its settings (bench_manifest.Profile.settings), without its words.


def first_difference(run: Run, other: Run) -> str | None:
    """The first thing that makes `other`'s passes not repeats of `run`'s (rate, profile, JVM flags, JDK), in words; None if none does."""

    def rate(r: Run):
        return r.manifest.json_rate

    def profile(r: Run) -> dict:
        return r.manifest.profile.settings()

    def jdk(r: Run) -> str:
        return r.manifest.provenance.jdk.version

    mine, theirs = run.manifest, other.manifest
    if rate(run) != rate(other):
        return f"the /json rate differs ({rate(run)}/s against {rate(other)}/s)"
    if mine.profile_name != theirs.profile_name:
        return f"the profile differs ({mine.profile_name} against {theirs.profile_name})"
    if profile(run) != profile(other):
        key = next(k for k in sorted(set(profile(run)) | set(profile(other))) if profile(run).get(k) != profile(other).get(k))
        return f"the profile's {key} differs ({profile(run).get(key)} against {profile(other).get(key)})"
    flags, other_flags = list(mine.jvm_flags), list(theirs.jvm_flags)
    if flags != other_flags:
        if sorted(flags) == sorted(other_flags):
            return "the JVM flags are the same but in another order"
        only = [f for f in flags if f not in other_flags] or ["(none)"]
        only_other = [f for f in other_flags if f not in flags] or ["(none)"]
        return f"the JVM flags differ ({' '.join(only)} against {' '.join(only_other)})"
    if jdk(run) != jdk(other):
        return f"the JDK differs ({jdk(run)} against {jdk(other)})"
    return None
