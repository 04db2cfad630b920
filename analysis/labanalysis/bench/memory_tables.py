"""Memory per idle connection for a reader: the steps' plateaus and each pass's lines, the components per socket with their range
across passes, the classes that grow with the sockets, and where each server's line leads at the seed's 50K sockets. The lines
are labanalysis.bench.memory's; nothing here fits one of its own."""

from __future__ import annotations

import math

import pandas as pd

from .. import stats
from ..folder import repeats
from ..folder.run import Run
from ..stats.numbers import shown
from .memory import COMPONENTS, MEASURES, class_slopes, components_per_server, live_heap_points, per_connection, per_socket_fit, plateaus


def plateaus_table(run: Run) -> pd.DataFrame:
    """Every step of every compared server: open sockets, RSS plateau (MiB), its drift, and whether it settled (or why not)."""
    rows = []
    for server in run.comparable:
        for _, p in plateaus(server).iterrows():
            rows.append(
                {
                    "run": server.name,
                    "step": p["step"],
                    "open sockets": p["open_sockets"],
                    "RSS plateau (MiB)": p["rss_bytes"] / (1 << 20),
                    "RSS drift over the last third (%)": p["rss_drift_percent"],
                    "settled": "yes" if p["settled"] else p["why"],
                }
            )
    return pd.DataFrame(rows)


def fits_table(run: Run) -> pd.DataFrame:
    """One row per server run and memory measure: bytes per socket with its 95% t-interval over this pass's steps (not the figure's
    uncertainty, which is the range across passes), memory at rest (MiB), R², points fitted,
    and the steps left out of the line because they did not settle.

    The points are the step plateaus, except for the live heap: one per GC during the steps.
    """
    rows = []
    for server in run.comparable:
        points = plateaus(server)
        for column, label in [
            ("rss_bytes", "RSS"),
            ("pss_bytes", "PSS"),
            ("heap_used_bytes", "heap used"),
            ("heap_after_gc_bytes", "live heap after GC"),
        ]:
            fit = per_connection(live_heap_points(server) if column == "heap_after_gc_bytes" else points, column)
            rows.append(
                {
                    "run": server.name,
                    "memory": label,
                    "bytes per socket": fit.slope,
                    # Student's t over this pass's few steps: how straight its line is, not how another pass would come out.
                    "this pass's t-interval, low": fit.slope_low,
                    "this pass's t-interval, high": fit.slope_high,
                    "at rest (MiB)": fit.intercept / (1 << 20),
                    "R²": fit.r_squared,
                    "points": fit.points,
                    "steps left out": "; ".join(fit.left_out),
                }
            )
    return pd.DataFrame(rows)


TOP_CLASSES = 10


def top_classes(runs: list[Run], top: int = TOP_CLASSES) -> pd.DataFrame:
    """Per server, its `top` classes by bytes per socket (the median across passes), each with the range across passes and the
    median instances per socket."""
    rows = []
    for _, server, base in repeats.each_pass(runs):
        for _, c in class_slopes(server).iterrows():
            rows.append({**base, "class": c["class"], "bytes_per_socket": c["bytes_per_socket"], "instances_per_socket": c["instances_per_socket"]})
    per_pass = pd.DataFrame(rows, columns=[*repeats.PASS_COLUMNS, "class", "bytes_per_socket", "instances_per_socket"])
    table = repeats.per_server(per_pass, value="bytes_per_socket", by=("class",))
    instances = per_pass.groupby(["server", "class"])["instances_per_socket"].median().rename("instances per socket")
    table = table.join(instances, on=["server", "class"])
    tops = [table[table["server"] == name].nlargest(top, "median") for name in dict.fromkeys(per_pass["server"])]
    return pd.concat(tops, ignore_index=True) if tops else table


EXTRAPOLATE_TO = 50_000  # the seed's idle sockets


def extrapolation(runs: list[Run], sockets: int = EXTRAPOLATE_TO) -> pd.DataFrame:
    """Per server: live heap and RSS at `sockets` from each pass's line (intercept + slope x sockets), the median across passes and
    their range; the heap the server ran with (the profile's heapMb); and at how many sockets the live heap would fill it.

    A line from a few thousand sockets to 50K assumes nothing changes on the way (no resize of a table, no GC falling behind):
    read it as where the measured slope leads, not as a measurement.
    """
    rows = []
    for run, server, base in repeats.each_pass(runs):
        heap = per_socket_fit(server, "live heap")
        rss = per_socket_fit(server, "RSS")
        fills = (run.heap_bytes - heap.intercept) / heap.slope if heap.slope > 0 else math.nan
        rows.append({**base, "live heap": heap.at(sockets), "RSS": rss.at(sockets), "heap": run.heap_bytes, "fills at": fills})
    per_pass = pd.DataFrame(rows, columns=[*repeats.PASS_COLUMNS, "live heap", "RSS", "heap", "fills at"])
    out = []
    for (server, label), group in per_pass.groupby(["server", "label"], sort=False):
        live, rss, fills = (stats.across(group[c]) for c in ("live heap", "RSS", "fills at"))
        heap = group["heap"].min()
        out.append(
            {
                "server": server,
                "label": label,
                "live heap": live,
                "RSS": rss,
                "heap": heap,
                "fills at": fills,
                "verdict": _fits(live, heap, fills, sockets),
            }
        )
    return pd.DataFrame(out, columns=["server", "label", "live heap", "RSS", "heap", "fills at", "verdict"])


def _fits(live: stats.Across, heap: float, fills: stats.Across, sockets: int) -> str:
    if live.passes == 0:
        return "not in this run: no memory.csv"
    if math.isnan(heap):
        return "the run does not say its heap"
    mib = heap / (1 << 20)
    if live.median > heap:
        return f"exceeds the {mib:,.0f} MiB heap: the live heap would fill it at about {fills.median:,.0f} sockets"
    if live.has_interval and live.high > heap:
        return f"fits the {mib:,.0f} MiB heap in the median pass, not in every pass (the highest reaches it at {fills.low:,.0f} sockets)"
    return f"fits: {100 * live.median / heap:.0f}% of the {mib:,.0f} MiB heap at {sockets:,} sockets"


def extrapolation_table(runs: list[Run], sockets: int = EXTRAPOLATE_TO) -> pd.DataFrame:
    """`extrapolation` for a reader, in MiB: median [lowest, highest] across passes."""
    rows = []
    for _, e in extrapolation(runs, sockets).iterrows():
        rows.append(
            {
                "server": e["label"],
                f"live heap at {sockets:,} sockets (MiB)": shown(_scaled(e["live heap"], 1 / (1 << 20)), _mib),
                f"RSS at {sockets:,} sockets (MiB)": shown(_scaled(e["RSS"], 1 / (1 << 20)), _mib),
                "heap it ran with (MiB)": _mib(e["heap"] / (1 << 20)),
                "the heap": e["verdict"],
            }
        )
    return pd.DataFrame(rows)


def components_table(runs: list[Run]) -> pd.DataFrame:
    """Components (COMPONENTS, then the measures) as rows, servers as columns: bytes per socket, median [lowest, highest] across passes."""
    table = components_per_server(runs)
    if table.empty:
        return pd.DataFrame()
    names = {**{c: label for c, (label, _) in COMPONENTS.items()}, **{m: f"{m} (sum)" if len(MEASURES[m]) > 1 else m for m in MEASURES}}
    order = [c for c in [*COMPONENTS, *MEASURES] if c in set(table["component"]) and not (c in MEASURES and len(MEASURES[c]) == 1)]
    out = pd.DataFrame(index=pd.Index([names[c] for c in order], name="bytes per open socket"))
    for label, rows in table.groupby("label", sort=False):
        by = rows.set_index("component")
        out[label] = [shown(stats.Across(*by.loc[c, ["median", "low", "high", "passes"]]), _bytes) for c in order]
    return out


def _scaled(value: stats.Across, factor: float) -> stats.Across:
    return stats.Across(value.median * factor, value.low * factor, value.high * factor, value.passes)


def _mib(value: float) -> str:
    return "" if math.isnan(value) else f"{value:,.0f}" if abs(value) >= 10 else f"{value:.1f}"


def _bytes(value: float) -> str:
    return "" if math.isnan(value) else f"{value:,.0f}"


def top_classes_table(runs: list[Run], top: int = TOP_CLASSES) -> pd.DataFrame:
    """`top_classes` for a reader: server, class, bytes per socket (median [lowest, highest] across passes), instances per socket."""
    rows = []
    for _, c in top_classes(runs, top).iterrows():
        rows.append(
            {
                "server": c["label"],
                "class": c["class"],
                "bytes per socket": shown(stats.Across(c["median"], c["low"], c["high"], c["passes"]), _bytes),
                "instances per socket (median)": c["instances per socket"],
            }
        )
    return pd.DataFrame(rows)
