"""Two runs side by side (`make compare A=... B=...`): every headline figure of every server in both, B against A, and what differs
between their manifests.

A comparison asks whether something changed a figure: JDK 21 against 25, a laptop against a Hetzner host, the lab before and after
an upgrade. Each run's figure is its median across its passes with the range across them (stats.across); B / A is the ratio of
the medians; and the ranges are apart only when every pass of one came out beyond every pass of the other. A figure whose settings
differ between the runs (perpass.Figure.settings) measured two different things: it says which setting differs instead of a ratio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .. import stats
from ..bench import cpu
from ..folder import catalogue
from ..folder.run import Run
from ..stats import Across
from ..stats.numbers import shown
from . import perpass


def settings(run: Run) -> dict:
    """What the run's figures depend on: its profile's settings (without the words), with the /json rate and socket count it ran
    at (a calibrated rate, a preflight that scaled the sockets) and the pinning threshold."""
    m = run.manifest
    return m.profile.settings() | {
        "jsonRatePerSecond": m.json_rate,
        "idleSockets": m.preflight.idle_sockets,
        "pinThresholdMs": m.pin_threshold_ms,
    }


def incomparable(figure: perpass.Figure, a: dict, b: dict) -> str | None:
    """Why `figure` cannot be compared between runs of settings `a` and `b`, naming each setting it depends on that differs; None
    if it can."""
    differ = [f"{key} {a.get(key)} against {b.get(key)}" for key in figure.settings if a.get(key) != b.get(key)]
    return "not comparable: " + ", ".join(differ) if differ else None


def ratio(a: Across, b: Across) -> float:
    """B's median over A's; NaN where one is not measured or A's is 0."""
    if a.passes == 0 or b.passes == 0 or a.median == 0:
        return math.nan
    return b.median / a.median


def verdict(figure: perpass.Figure, a: Across, b: Across) -> str:
    """B against A in words: better or worse only when the ranges across passes are apart; else why no conclusion is drawn."""
    if a.median == b.median:
        return "the same"
    separated = stats.separated(a, b)
    if separated != "apart across passes":
        return separated
    better = b.median < a.median if figure.lower_is_better else b.median > a.median
    return f"B {'better' if better else 'worse'}: apart across passes"


@dataclass(frozen=True)
class Pair:
    """One figure of one server in both runs."""

    figure: perpass.Figure
    server: str
    label: str
    a: Across
    b: Across
    # Why no ratio is given: the runs' settings differ for this figure, or one run did not measure it (a failed server).
    why_not: str | None = None

    @property
    def ratio(self) -> float:
        return math.nan if self.why_not else ratio(self.a, self.b)

    @property
    def verdict(self) -> str:
        return self.why_not or verdict(self.figure, self.a, self.b)


def pairs(a: Run, b: Run) -> list[Pair]:
    """Every headline figure (perpass.FIGURES) of every server that both runs ran, figure by figure in the catalogue's order, over
    the rounds the verdict judges (perpass.judged)."""
    per_server = {run.folder: perpass.per_server(perpass.judged(perpass.table([run]))) for run in (a, b)}
    settings_a, settings_b = settings(a), settings(b)
    found = []
    for figure in perpass.FIGURES:
        why_figure = incomparable(figure, settings_a, settings_b)
        for server in in_both(a, b):
            values = [figure_of(per_server[run.folder], figure, named_in(run, server)) for run in (a, b)]
            missing = [
                f"{side}: {not_measured(run, named_in(run, server))}" for side, run, v in zip("AB", (a, b), values, strict=True) if v.passes == 0
            ]
            why_not = why_figure or ("; ".join(missing) if missing else None)
            found.append(Pair(figure, server, catalogue.label(server), values[0], values[1], why_not))
    return found


def figure_of(per_server: pd.DataFrame, figure: perpass.Figure, server: str) -> Across:
    rows = per_server[(per_server["figure"] == figure.key) & (per_server["server"] == server)] if not per_server.empty else per_server
    if rows.empty:
        return stats.across([])
    row = rows.iloc[0]
    return Across(row["median"], row["low"], row["high"], int(row["passes"]))


def not_measured(run: Run, server: str) -> str:
    """Why `run` has no compared pass of `server`: how its passes ended, or that none measured the figure."""
    passes = [s for s in run.servers if s.server == server and s.jfr_streaming]
    failed = [s for s in passes if not s.ok]
    if passes and len(failed) == len(passes):
        first = failed[0].outcome
        return f"{server} failed in every pass ({first.status}: {first.reason or 'no reason recorded'})"
    return "not measured"


def named_in(run: Run, server: str) -> str:
    """What `run` calls the server the catalogue now calls `server`: a run from before a rename has its former name."""
    return next((s for s in run.manifest.servers if catalogue.current(s) == server), server)


def in_both(a: Run, b: Run) -> list[str]:
    """The servers both runs ran, by the catalogue's names now (a run from before a rename has former ones), in A's order."""
    theirs = {catalogue.current(s) for s in b.manifest.servers}
    return [catalogue.current(s) for s in a.manifest.servers if catalogue.current(s) in theirs]


def in_one(a: Run, b: Run) -> list[str]:
    """The servers only one run ran, one sentence each."""
    mine = [catalogue.current(s) for s in a.manifest.servers]
    theirs = [catalogue.current(s) for s in b.manifest.servers]
    only_a = [s for s in mine if s not in theirs]
    only_b = [s for s in theirs if s not in mine]
    notes = [f"only in A ({a.folder.name}): {', '.join(only_a)}"] if only_a else []
    return notes + ([f"only in B ({b.folder.name}): {', '.join(only_b)}"] if only_b else [])


def table(found: list[Pair]) -> pd.DataFrame:
    """The comparison for a reader: one row per figure and server, A and B as median [range] over N passes, B / A and the verdict."""
    rows = [
        {
            "figure": p.figure.label,
            "server": p.label,
            "A": shown(p.a),
            "B": shown(p.b),
            "B / A": times(p.ratio),
            "B against A": p.verdict,
        }
        for p in found
    ]
    return pd.DataFrame(rows, columns=["figure", "server", "A", "B", "B / A", "B against A"])


def host_speed(run: Run) -> Across:
    """The load generator's CPU per /json request (µs) across the run's compared passes (cpu.load_cpu_per_request): the same work for
    every server at one rate, so it moves with the host's speed, which moves every timing of the run with it."""
    table = cpu.phase_table([run])
    return stats.across(table.get(cpu.LOAD_PER_REQUEST, []))


def host_speed_sentence(a: Run, b: Run) -> str:
    """The two runs' host speed side by side, and whether it moved: a timing that moved with it is not the change's doing."""
    speed_a, speed_b = host_speed(a), host_speed(b)
    if speed_a.passes == 0 or speed_b.passes == 0:
        return "The host's speed cannot be compared: a run's cpu.csv has no load generator's CPU in it (the load ran on other hosts)."
    generators = {cpu.offered_by(a), cpu.offered_by(b)}
    if len(generators) > 1:
        return "The host's speed cannot be compared: k6 offered one run's /json phase and vegeta the other's, whose CPU per request differ."
    return (
        f"The host's speed, from {generators.pop()}'s CPU per /json request (the load generator does the same work for every server at "
        f"one rate, so it moves with the host): A {shown(speed_a)} µs, B {shown(speed_b)} µs, B / A {times(ratio(speed_a, speed_b))} "
        f"({stats.separated(speed_a, speed_b)}). A timing that moved by about as much may have moved with the host."
    )


def marked(run: Run, side: str) -> list[str]:
    """The run's passes whose latency measures something else (cpu's marks: the load generator was the bottleneck, or the server was
    saturated), one sentence each: kept in the medians, as in the run's own report, and named here."""
    return [f"{side}: {note}" for note in cpu.bottleneck_notes([run]) + cpu.saturation_notes([run])]


def times(r: float) -> str:
    """A ratio as the table writes it, with the change in percent: a 1.00x that is 0.1% up is not a 1.00x that is 0.4% down."""
    return f"{r:.2f}x ({100 * (r - 1):+.1f}%)" if not math.isnan(r) else ""


# ---- what differs between the manifests -----------------------------------------------------------


def facts(run: Run) -> dict[str, str]:
    """The manifest's facts a comparison puts side by side, by the name the table gives them."""
    m = run.manifest
    header = m.provenance
    host, jdk = header.host, header.jdk
    split = run.cpu_split
    ran = settings(run)
    return {
        "JDK": " ".join(x for x in (jdk.version, jdk.vendor) if x),
        "JVM flags": " ".join(m.jvm_flags),
        "host": f"{host.hostname}, kernel {host.kernel}",
        "CPUs": f"{host.cpus} ({host.cpu_model})",
        "CPU split": f"server on {list(split.server_cpus)}, load on {list(split.load_cpus)}" if split else "none: shared",
        "profile": m.profile_name,
        "/json rate": f"{ran.get('jsonRatePerSecond')}/s",
        "/dashboard rate": f"{ran.get('dashboardRatePerSecond')}/s",
        "idle sockets": str(ran.get("idleSockets")),
        "servers": ", ".join(m.servers),
        "k6": m.k6_version,
        "git commit": header.commit(),
        "started": header.started(),
        "status": header.status,
    }


def manifest_differences(a: Run, b: Run) -> pd.DataFrame:
    """Each fact of facts() in A and in B, and whether it differs; then every other profile setting that differs."""
    fa, fb = facts(a), facts(b)
    rows = [{"": name, "A": fa[name], "B": fb[name], "differs": "yes" if fa[name] != fb[name] else ""} for name in fa]
    sa, sb = settings(a), settings(b)
    shown_already = {"jsonRatePerSecond", "dashboardRatePerSecond", "idleSockets"}
    for key in sorted((set(sa) | set(sb)) - shown_already):
        if sa.get(key) != sb.get(key):
            rows.append({"": f"profile: {key}", "A": str(sa.get(key)), "B": str(sb.get(key)), "differs": "yes"})
    return pd.DataFrame(rows, columns=["", "A", "B", "differs"])


def differing(a: Run, b: Run) -> list[str]:
    """The names of the facts that differ, for the report's opening sentence."""
    frame = manifest_differences(a, b)
    return [name for name, differs in zip(frame[""], frame["differs"], strict=True) if differs and name not in ("started", "status")]
