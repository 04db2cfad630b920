"""Memory per idle connection: the line through memory against open sockets, and what it costs per socket (labanalysis.bench.memory_tables shows it).

One statistic (`per_connection`, least squares against open sockets), through two sets of points:
- memory.csv's snapshots: at each socket step's end the harness forces a full GC and reads the server's memory split
  into its parts (live heap, NMT's categories, kernel memory, RSS and PSS) and the sockets it holds open. Each component's slope
  over a pass's snapshots is what one more open socket costs of it (`component_fits`). Every figure per socket comes from these.
  A pass whose profile opens its sockets again after the load has two sets of snapshots, `cold` and `warm` (SOCKETS), each fitted
  on its own; the figures are the set the profile declares (ServerRun.sockets_headline) unless a caller names the other.
- proc.csv's step plateaus (`plateaus`): RSS and PSS once a second, the mean of each step's last third, against the sockets k6
  had opened. The report shows them as a check on the snapshots, not as a figure.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import pandas as pd
from scipy import stats

from ..folder import repeats
from ..folder.run import Run, ServerRun, load_run

STEP_PREFIX = "sockets-step-"

# The plateau of a step is the last third of its samples (taken once a second), so of its hold:
# the sockets open in the first half and memory settles after them. Counted in samples, not
# seconds, so that a sample a few ms early is not left out of a short step's plateau.
PLATEAU_FRACTION = 1 / 3
# A step has settled when its RSS moved less than this, first sample to last, over its plateau.
# One that has not is no plateau: its mean depends on when the step ended, so it is shown,
# marked, and left out of every line (a longer hold, stepHoldSeconds, lets it settle).
SETTLED_DRIFT_PERCENT = 2.0
PROC_COLUMNS = ["rss_bytes", "pss_bytes", "threads", "fds", "maps"]
PLATEAU_COLUMNS = ["step", "open_sockets", *PROC_COLUMNS, "heap_used_bytes", "rss_drift_percent", "settled", "why"]


def plateaus(server: ServerRun) -> pd.DataFrame:
    """One row per socket step: step, open_sockets, the means over its plateau of RSS, PSS, JFR's heap used, threads, fds and maps,
    and whether it settled: rss_drift_percent over the plateau, settled, and why not (empty when it did).

    This is the one place a plateau is computed; every line through plateaus (`per_connection`) leaves out those that did not settle.
    """
    proc = server.proc
    if proc.empty:
        return pd.DataFrame(columns=PLATEAU_COLUMNS)
    heap = server.jfr[server.jfr["metric"] == "heap_used_bytes"] if not server.jfr.empty else pd.DataFrame()
    rows = []
    for phase, samples in proc[proc["phase"].str.startswith(STEP_PREFIX)].groupby("phase"):
        plateau = samples.sort_values("time_s").tail(math.ceil(len(samples) * PLATEAU_FRACTION))
        since = plateau["time_s"].min()
        heap_plateau = heap[(heap["phase"] == phase) & (heap["time_s"] >= since)]["value"] if not heap.empty else pd.Series(dtype=float)
        step_load = server.load[server.load["phase"] == phase]
        rss = plateau["rss_bytes"]
        drift = 100 * (rss.iloc[-1] - rss.iloc[0]) / rss.iloc[0] if len(rss) and rss.iloc[0] else math.nan
        settled = bool(abs(drift) < SETTLED_DRIFT_PERCENT)
        rows.append(
            {
                "step": int(phase.removeprefix(STEP_PREFIX)),
                "open_sockets": int(step_load["sockets_opened_total"].max()) if not step_load.empty else 0,
                **{column: plateau[column].mean() for column in PROC_COLUMNS},
                "heap_used_bytes": heap_plateau.mean() if not heap_plateau.empty else math.nan,
                "rss_drift_percent": drift,
                "settled": settled,
                "why": "" if settled else f"RSS still moving {drift:+.1f}% over the step's last third (limit {SETTLED_DRIFT_PERCENT:g}%)",
            }
        )
    return pd.DataFrame(rows, columns=PLATEAU_COLUMNS).sort_values("step").reset_index(drop=True)


def live_heap_points(server: ServerRun) -> pd.DataFrame:
    """One row per GC during the socket steps: open_sockets then, and heap_after_gc_bytes (the live heap, from JFR).

    What survives a collection is what the connections keep; heap used, and so RSS, also holds
    garbage until ZGC gets to it, which depends on the heap size more than on the sockets. There
    are only as many points as collections, which an idle server makes few of.
    """
    columns = ["time_s", "open_sockets", "heap_after_gc_bytes"]
    jfr, load = server.jfr, server.load
    if jfr.empty or load.empty:
        return pd.DataFrame(columns=columns)
    gcs = jfr[(jfr["metric"] == "heap_after_gc_bytes") & jfr["phase"].str.startswith(STEP_PREFIX)]
    gcs = gcs[["time_s", "value"]].rename(columns={"value": "heap_after_gc_bytes"}).sort_values("time_s")
    opened = load[["time_s", "sockets_opened_total"]].rename(columns={"sockets_opened_total": "open_sockets"}).sort_values("time_s")
    # The sockets open at a GC: k6's count at its last report before it.
    joined = pd.merge_asof(gcs.astype({"time_s": float}), opened.astype({"time_s": float}), on="time_s", direction="backward")
    # Generational ZGC reports the heap after a major collection twice (its young and old parts
    # end together): one collection is one point, not two that would fake a perfect fit.
    return joined.dropna()[columns].drop_duplicates(subset=["open_sockets", "heap_after_gc_bytes"]).reset_index(drop=True)


@dataclass(frozen=True)
class LineFit:
    """Bytes per connection (the slope, with its 95% t-interval over this one pass's points) and memory at rest (the intercept).

    The t-interval says how straight one pass's line is. It is not the figure's uncertainty, which is the spread across passes
    (stats.across): every figure the report compares takes the slope only.
    """

    slope: float
    slope_low: float
    slope_high: float
    intercept: float
    r_squared: float
    points: int
    # The steps left out of the line because they did not settle, each with why.
    left_out: tuple[str, ...] = ()

    def at(self, sockets: float) -> float:
        return self.intercept + self.slope * sockets


def per_connection(points: pd.DataFrame, column: str, settled_only: bool = True) -> LineFit:
    """Least squares of `column` against open_sockets over the points that settled (all points, for points without a `settled`
    column, or where `settled_only` is False: a count, threads or files, does not drift as RSS does while the collector gives
    memory back): the one line fitted through memory against sockets, for every source and component.

    The interval is the slope's 95% confidence interval from Student's t with n - 2 degrees of
    freedom: wide with five steps, and undefined (NaN) with two, which is honest about how much
    a handful of plateaus can say.
    """
    left_out: tuple[str, ...] = ()
    if settled_only and "settled" in points.columns:
        unsettled = points[~points["settled"].astype(bool)]
        left_out = tuple(f"step {int(p['step'])}: {p['why']}" for _, p in unsettled.iterrows())
        points = points[points["settled"].astype(bool)]
    data = points[["open_sockets", column]].dropna()
    n = len(data)
    if n < 2 or data["open_sockets"].nunique() < 2:
        return LineFit(math.nan, math.nan, math.nan, math.nan, math.nan, n, left_out=left_out)
    fit = stats.linregress(data["open_sockets"].astype(float), data[column].astype(float))
    half_width = stats.t.ppf(0.975, n - 2) * fit.stderr if n > 2 else math.nan
    return LineFit(
        slope=fit.slope,
        slope_low=fit.slope - half_width,
        slope_high=fit.slope + half_width,
        intercept=fit.intercept,
        r_squared=fit.rvalue**2,
        points=n,
        left_out=left_out,
    )


# memory.csv's components (the spec's names), what each is, and where it goes in the stack per socket: the live heap, the
# native memory NMT counts other than the heap, and the kernel's; nmt_heap (the heap committed: all of -Xms, fixed) and RSS
# and PSS (what the process has resident, which is none of those sums) are shown beside the stack, not in it.
COMPONENTS = {
    "live_heap": ("live heap (after a full GC)", "heap"),
    "nmt_heap": ("Java heap committed (NMT)", None),
    "nmt_thread": ("thread stacks and thread structures (NMT Thread)", "native"),
    "nmt_gc": ("GC structures (NMT GC)", "native"),
    "nmt_class": ("classes and metaspace (NMT Class)", "native"),
    "nmt_code": ("code cache and compiler (NMT Code)", "native"),
    "nmt_other": ("direct buffers and Unsafe (NMT Other)", "native"),
    "nmt_rest": ("every other NMT category", "native"),
    # cgroup v1 charges TCP buffers to memory.kmem.tcp, apart from memory.kmem: the two add up.
    "kernel": ("kernel memory charged to the server (socket structures, kernel stacks)", "kernel"),
    "kernel_tcp": ("kernel TCP buffers charged to the server", "kernel"),
    "kernel_tcp_host": ("the host's TCP buffers (both ends of loopback sockets)", "kernel"),
    "rss": ("RSS", None),
    "pss": ("PSS", None),
}
NATIVE = [c for c, (_, part) in COMPONENTS.items() if part == "native"]
KERNEL = [c for c, (_, part) in COMPONENTS.items() if part == "kernel"]

# The measures a headline compares, each a column of `snapshots`: a component, or a sum of components whose slopes add up.
MEASURES = {
    "live heap": ["live_heap"],
    "native (NMT, not the heap)": NATIVE,
    "kernel memory": KERNEL,
    "RSS": ["rss"],
    "PSS": ["pss"],
}
# What an idle socket holds, in all: its live heap, its native memory and the kernel's, each fitted through the same snapshots, so
# its line is the sum of theirs. PSS holds more than that under ZGC with -Xms at -Xmx: every heap page a cycle has touched since
# the start, which from one pass to the next took one of two levels, the live heap the same in both (FINDINGS.md, "The harness
# and its tools"). The parts repeat; the touched pages do not.
HELD = "held: live heap + native + kernel"
HELD_PARTS = ("live heap", "native (NMT, not the heap)", "kernel memory")
# The phases whose snapshots a line is fitted through, for each set of sockets: the one at rest and each socket step's end. Cold
# sockets open before any load, at rest before the first; warm ones open after the load (the harness's LoadTimeline), at rest
# once the cold ones have closed. A snapshot taken under request load (json, dashboard) would add what the requests hold.
COLD, WARM = "cold", "warm"
SOCKETS = {COLD: ("startup", STEP_PREFIX), WARM: ("warm-sockets-rest", "warm-sockets-step-")}
# The longest a snapshot's readings take, one component to the next (a full GC and a class histogram of a 2 GiB heap take a second
# or two); snapshots are a socket step's hold apart, ten seconds or more.
SNAPSHOT_GAP_S = 5.0


def snapshots(server: ServerRun, sockets: str | None = None) -> pd.DataFrame:
    """One row per snapshot of the socket steps, of the `sockets` given (COLD or WARM; the pass's headline set when None): time_s,
    open_sockets (the server's own count), a column of bytes per component the pass has (COMPONENTS), and one per measure
    (MEASURES: the sum of its components). Empty for a pass without memory.csv, or without that set.

    A snapshot is the rows of one reading: in time order, a row starts a new snapshot when its component is already in the current
    one, or when it comes more than SNAPSHOT_GAP_S after the row before. Its time, phase and sockets are its first row's, so that a
    reading that takes a few seconds, and crosses into the next step's phase, is still one snapshot of the step it was taken for.

    Computed once for the pass as loaded (each of its measures' lines reads them); each caller gets its own copy.
    """
    sockets = sockets or server.sockets_headline
    cached = server.__dict__.setdefault("_memory_snapshots", {})
    if sockets not in cached:
        cached[sockets] = _snapshots(server, SOCKETS[sockets])
    return cached[sockets].copy()


def _snapshots(server: ServerRun, phases: tuple[str, ...]) -> pd.DataFrame:
    frame = server.memory
    if frame.empty:
        return pd.DataFrame(columns=["time_s", "open_sockets"])
    frame = frame.sort_values("time_s", kind="stable")
    snapshot, seen, ids, before = 0, set(), [], None
    for time_s, component in zip(frame["time_s"], frame["component"], strict=True):
        if component in seen or (before is not None and time_s - before > SNAPSHOT_GAP_S):
            snapshot, seen = snapshot + 1, set()
        seen.add(component)
        ids.append(snapshot)
        before = time_s
    frame = frame.assign(snapshot=ids)
    first = frame.groupby("snapshot")[["time_s", "phase", "sockets_open"]].first()
    wide = first.join(frame.pivot_table(index="snapshot", columns="component", values="bytes", aggfunc="last"))
    wide = wide[wide["phase"].astype(str).str.startswith(phases)]
    wide = wide.drop(columns="phase").rename(columns={"sockets_open": "open_sockets"}).reset_index(drop=True)
    wide.columns.name = None
    if wide.empty:
        return pd.DataFrame(columns=["time_s", "open_sockets"])
    for measure, parts in MEASURES.items():
        present = [p for p in parts if p in wide.columns]
        if measure == "kernel memory":
            # The server's own cgroup where the host had one; the host's TCP memory only where it did not.
            present = [p for p in present if p != "kernel_tcp_host"] or present
        elif len(present) < len(parts):
            present = []  # NMT writes every category or none: a sum of some would be no measure
        wide[measure] = wide[present].sum(axis=1, min_count=len(present)) if present else math.nan
    wide[HELD] = wide[list(HELD_PARTS)].sum(axis=1, min_count=len(HELD_PARTS))
    return wide


def component_fits(server: ServerRun, sockets: str | None = None) -> dict[str, LineFit]:
    """Per component and measure of the pass's snapshots (of `sockets`, as `snapshots`): the line of its bytes against the sockets
    open (`per_connection`)."""
    points = snapshots(server, sockets)
    columns = [c for c in points.columns if c not in ("time_s", "open_sockets")]
    return {column: per_connection(points, column) for column in columns}


def per_socket_fit(server: ServerRun, measure: str, sockets: str | None = None) -> LineFit:
    """A pass's line of `measure` (MEASURES, or HELD) against open sockets, through memory.csv's snapshots (of `sockets`, as
    `snapshots`); no line (NaN) where the pass has fewer than two snapshots of it (its memory.csv is missing or cut short, which its
    problems say, or it opened no warm sockets)."""
    points = snapshots(server, sockets)
    if measure in points.columns and points[measure].notna().sum() >= 2:
        return per_connection(points, measure)
    return LineFit(math.nan, math.nan, math.nan, math.nan, math.nan, 0)


def components_per_pass(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass and component (or measure) of its memory.csv: bytes_per_socket (the slope), at_rest_bytes (the
    intercept) and points (snapshots fitted)."""
    rows = []
    for _, server, base in repeats.each_pass(runs):
        for component, fit in component_fits(server).items():
            rows.append({**base, "component": component, "bytes_per_socket": fit.slope, "at_rest_bytes": fit.intercept, "points": fit.points})
    return pd.DataFrame(rows, columns=[*repeats.PASS_COLUMNS, "component", "bytes_per_socket", "at_rest_bytes", "points"])


def components_per_server(runs: list[Run]) -> pd.DataFrame:
    """Per server and component (or measure): bytes per socket, the median across its passes with their range (stats.across)."""
    return repeats.per_server(components_per_pass(runs), value="bytes_per_socket", by=("component",))


def class_slopes(server: ServerRun) -> pd.DataFrame:
    """Per class in the pass's histogram.csv: bytes_per_socket and instances_per_socket (least squares over the snapshots it is listed
    in, against the sockets open), and points.

    The histogram lists the 25 largest classes at each snapshot, so a class that grows with the sockets may be missing from the
    first (too small then to be listed); its line is fitted through the snapshots that list it, and needs three.
    """
    columns = ["class", "bytes_per_socket", "instances_per_socket", "points"]
    histogram = server.histogram
    if histogram.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for name, listed in histogram.rename(columns={"sockets_open": "open_sockets"}).groupby("class"):
        if len(listed) < 3 or listed["open_sockets"].nunique() < 2:
            continue
        rows.append(
            {
                "class": name,
                "bytes_per_socket": per_connection(listed, "bytes").slope,
                "instances_per_socket": per_connection(listed, "instances").slope,
                "points": len(listed),
            }
        )
    return pd.DataFrame(rows, columns=columns)


def main(argv: list[str]) -> int:
    """`python -m labanalysis.bench.memory <run folder>...`: each compared pass's bytes per socket of each component, as CSV on stdout.

    The report's own numbers, for a reader outside the report: the harness's known-truth test of the memory pipeline reads them.
    """
    if not argv:
        print("usage: python -m labanalysis.bench.memory <run folder> [<run folder> ...]", file=sys.stderr)
        return 2
    components_per_pass([load_run(folder) for folder in argv]).to_csv(sys.stdout, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
