"""WebSocket echo under Autobahn's section 9 (`make autobahn-perf`, a `results/<time>-autobahn/` folder): how long each server takes
over large messages and many frames, as wstest times them.

Section 9 sends text and binary messages of 64 KiB to 16 MiB whole (9.1, 9.2), split into frames of 64 B to 4 MiB (9.3, 9.4), in
chunks of 64 B to 128 KiB (9.5, 9.6), and 1,000 messages of 0 B to 4 KiB, each after the last one's echo (9.7, 9.8). wstest
times each case from its opening handshake to the connection's close, so a case's duration includes however long the server takes
to close: a server that lingers after its last frame (Ktor's close-linger, 100 ms) pays it in every case. `excess` shows that: the
median over cases of one arm's duration less another's, case by case, is what one adds to every case.

An arm is a server as the lab runs it, or with some of the lab's changes to its engine left out (asShipped). Each pass runs every arm
once, alone on the server's CPUs, wstest on the others; the passes are interleaved. A figure is the median across passes with the
range across them (stats.across). Reading the folder: labanalysis.folder.autobahnfolder.
"""

from __future__ import annotations

import pandas as pd

from .. import stats
from ..bench import runtime
from ..folder import catalogue
from ..folder.autobahnfolder import AutobahnRun, short_passes
from ..folder.experiment_manifests import AutobahnArm
from ..stats.numbers import shown

# Autobahn's verdicts on a case's echo, in the order a reader is shown them: the first three pass (make test's conformance).
BEHAVIORS = ["OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED", "WRONG CODE", "UNCLEAN"]
ACROSS_COLUMNS = ["median_ms", "low_ms", "high_ms", "passes"]


def server_of(run: AutobahnRun, arm: str) -> str:
    return _arm(run, arm).server


def label(run: AutobahnRun, arm: str) -> str:
    """How a reader is told which arm it is: its server's label, and the lab's changes it runs without (catalogue's, for an arm
    named as the harness names one; from the manifest for a run folder whose arms were named otherwise)."""
    entry = _arm(run, arm)
    if catalogue.arm_of(arm) == entry.server:
        return catalogue.label(arm)
    without = entry.as_shipped
    engine = run.manifest.engines.get(catalogue.engine_in(run.manifest.catalogue, entry.server), {})
    if without and set(without) == {change["name"] for change in engine.get("changes", [])}:
        return f"{catalogue.label(entry.server)} as shipped"
    return catalogue.label(entry.server) + (f" without {', '.join(without)}" if without else "")


def colour(run: AutobahnRun, arm: str) -> str:
    return catalogue.colour(arm) if catalogue.arm_of(arm) == server_of(run, arm) else catalogue.colour(server_of(run, arm))


def arm_order(run: AutobahnRun, arms) -> list[str]:
    """`arms`, each once, by the catalogue's order of their servers, then by name."""
    servers = catalogue.order([server_of(run, a) for a in arms])
    return sorted(dict.fromkeys(arms), key=lambda a: (servers.index(server_of(run, a)), a))


def totals(run: AutobahnRun) -> pd.DataFrame:
    """Per arm and pass (in the order they ran): the cases' durations summed (ms), the cases, how many Autobahn judged OK and how
    many not, and the pass's wall time around wstest (s), which adds wstest's own start and the server's."""
    wall = {(o.arm, o.pass_): o.wall_seconds for o in run.manifest.outcomes}
    rows = []
    for (arm, pass_number), group in run.cases.groupby(["arm", "pass"], sort=False):
        ok = int((group["behavior"] == "OK").sum())
        rows.append(
            {
                "arm": arm,
                "pass": pass_number,
                "total_ms": int(group["duration_ms"].sum()),
                "cases": len(group),
                "ok": ok,
                "not_ok": len(group) - ok,
                "wall_s": wall.get((arm, pass_number)),
            }
        )
    return pd.DataFrame(rows, columns=["arm", "pass", "total_ms", "cases", "ok", "not_ok", "wall_s"])


def summary(run: AutobahnRun) -> pd.DataFrame:
    """Per arm: its passes' totals (ms) as the median, lowest, highest and passes; a pass that ran fewer cases than the others
    (short_passes) is not a pass of the same work and is left out. Arms by arm_order."""
    whole = _whole(run, totals(run))
    rows = [{"arm": arm, **_across(whole.loc[whole["arm"] == arm, "total_ms"])} for arm in arm_order(run, whole["arm"])]
    return _labelled(run, pd.DataFrame(rows, columns=["arm", *ACROSS_COLUMNS]))


def summary_table(run: AutobahnRun) -> pd.DataFrame:
    """summary for a reader: each arm's section 9, summed over its cases, in seconds, as `median [lowest, highest] over N passes`."""
    values = summary(run)
    cases = run.cases.groupby("arm")["case"].nunique()
    return pd.DataFrame(
        {
            "arm": values["label"],
            "section 9, its cases' durations summed (s)": [
                shown(stats.Across(r.median_ms / 1000, r.low_ms / 1000, r.high_ms / 1000, r.passes)) for r in values.itertuples()
            ],
            "cases": [cases.get(a, 0) for a in values["arm"]],
        }
    )


def by_section(run: AutobahnRun) -> pd.DataFrame:
    """Per arm and section (9.1 ... 9.8): the section's durations summed in each pass (ms), as the median, lowest, highest and
    passes across passes."""
    sums = _whole(run, run.cases).groupby(["arm", "section", "pass"], sort=False)["duration_ms"].sum().reset_index()
    rows = [
        {"arm": arm, "section": section, **_across(sums.loc[(sums["arm"] == arm) & (sums["section"] == section), "duration_ms"])}
        for arm in arm_order(run, sums["arm"])
        for section in sorted(sums["section"].unique(), key=lambda s: tuple(map(int, s.split("."))))
        if ((sums["arm"] == arm) & (sums["section"] == section)).any()
    ]
    return _labelled(run, pd.DataFrame(rows, columns=["arm", "section", *ACROSS_COLUMNS]))


def section_table(run: AutobahnRun) -> pd.DataFrame:
    """by_section for a reader: arms down, sections across, the median ms over passes."""
    values = by_section(run)
    if values.empty:
        return pd.DataFrame()
    wide = values.pivot_table(index="label", columns="section", values="median_ms", aggfunc="first", sort=False)
    wide.columns.name = None
    wide.index.name = None
    return wide


def excess(run: AutobahnRun, arm: str, reference: str) -> pd.DataFrame:
    """Per pass: the median over cases of `arm`'s duration less `reference`'s, for the same case in the same pass (ms), and how
    many cases paired. A fixed cost in every case (a close that waits) shows whole here, where a sum would mix it with the cases
    that move most bytes."""
    mine = run.cases[run.cases["arm"] == arm][["pass", "case", "duration_ms"]]
    theirs = run.cases[run.cases["arm"] == reference][["pass", "case", "duration_ms"]]
    paired = mine.merge(theirs, on=["pass", "case"], suffixes=("", "_reference"))
    paired = paired.assign(excess_ms=paired["duration_ms"] - paired["duration_ms_reference"])
    out = paired.groupby("pass", sort=True)["excess_ms"].agg(excess_ms="median", cases="count").reset_index()
    return out[["pass", "excess_ms", "cases"]]


def fastest(run: AutobahnRun) -> str | None:
    """The reference arm: the lowest median total of the arms that run their server with all of the lab's changes; None if none has a total."""
    values = summary(run)
    whole = [arm for arm in values["arm"] if not _arm(run, arm).as_shipped]
    values = values[values["arm"].isin(whole)].dropna(subset=["median_ms"])
    return None if values.empty else values.sort_values("median_ms", kind="stable")["arm"].iloc[0]


def excess_table(run: AutobahnRun, reference: str) -> pd.DataFrame:
    """Every other arm against `reference`: the per-case excess (excess), median [lowest, highest] across passes, in ms."""
    rows = []
    for arm in arm_order(run, [a for a in run.cases["arm"].unique() if a != reference]):
        value = stats.across(excess(run, arm, reference)["excess_ms"])
        rows.append({"arm": label(run, arm), f"per case, more than {label(run, reference)} (ms)": shown(value)})
    return pd.DataFrame(rows)


def verdicts(run: AutobahnRun) -> pd.DataFrame:
    """Per arm, over all its passes: how many cases got each of Autobahn's verdicts (BEHAVIORS first, any other after)."""
    counts = run.cases.groupby(["arm", "behavior"]).size().unstack(fill_value=0)
    seen = [b for b in BEHAVIORS if b in counts.columns] + sorted(set(counts.columns) - set(BEHAVIORS))
    counts = counts.reindex(index=arm_order(run, counts.index), columns=seen).reset_index()
    counts.columns.name = None
    return counts.assign(arm=counts["arm"].map(lambda a: label(run, a)))


def facts(run: AutobahnRun) -> dict[str, str]:
    """What ran, for the report's table of runs."""
    m = run.manifest
    split = m.cpu_split
    order = " → ".join(f"{p.arm} {p.pass_}" for p in m.pass_order)
    failed = [o for o in m.outcomes if o.status != "ok"]
    return {
        **m.provenance.run_facts(),
        "server JDK": f"{m.server_jdk.version} ({m.server_jdk.home})",
        "JVM flags": " ".join(m.jvm_flags),
        "CPUs": f"server {list(split.server_cpus)}, wstest {list(split.load_cpus)}" if split else "shared",
        "wstest": m.wstest,
        "cases": f"{', '.join(m.cases)}: {run.cases['case'].nunique()} a pass",
        "largest frame a server takes": f"{m.max_frame_bytes:,} bytes" if m.max_frame_bytes else "the server's default",
        "passes, in the order they ran": order + f" (shuffled with seed {m.pass_seed})",
        "passes that failed": "; ".join(f"{o.folder}: {o.reason or o.status}" for o in failed) or "none",
        "what the lab changed in each engine": runtime.engine_changes(m.engines),
        "arms": "; ".join(
            f"{a.name}: {a.server}, " + (f"without {', '.join(a.as_shipped)}" if a.as_shipped else "with every change the lab makes")
            for a in run.arms
        ),
        "git commit": m.provenance.commit(),
    }


def _arm(run: AutobahnRun, arm: str) -> AutobahnArm:
    found = next((a for a in run.arms if a.name == arm), None)
    # An agent the manifest does not declare is drawn as a server of its own name (grey, unlabelled).
    return found or AutobahnArm(name=arm, server=arm, as_shipped=())


def _whole(run: AutobahnRun, per_pass: pd.DataFrame) -> pd.DataFrame:
    """`per_pass`'s rows (an arm and pass each) but those of short_passes."""
    short = short_passes(run.cases)
    keep = pd.Series([(a, p) not in short for a, p in zip(per_pass["arm"], per_pass["pass"], strict=True)], index=per_pass.index, dtype=bool)
    return per_pass[keep]


def _across(values) -> dict:
    value = stats.across(values)
    return {"median_ms": value.median, "low_ms": value.low, "high_ms": value.high, "passes": value.passes}


def _labelled(run: AutobahnRun, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with each arm's label and server beside its name."""
    return frame.assign(label=[label(run, a) for a in frame["arm"]], server=[server_of(run, a) for a in frame["arm"]])[
        ["arm", "label", "server", *[c for c in frame.columns if c != "arm"]]
    ]
