"""The experiments report's plots (experiments.ipynb): make floor's memory per parked task, make clients' threads and downloads,
make io-bench's paths, make sweep's curves and make autobahn-perf's times. Each with a title, axis units and a legend."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch

from ..autobahn import autobahnperf
from ..folder import catalogue
from ..sweep import sweep
from .plot_style import MIB, medians_panels, model_colour


def floor_per_task(per_task: pd.DataFrame, measures: tuple[str, ...] = ("live heap", "RSS"), warmth: str = "warm"):
    """KiB per parked task of the JVMs of `warmth` (median bars, whiskers the range over the repeats, from 3 repeats), one panel a
    measure: model and depth along, one bar a JDK, the older JDK's lighter."""
    per_task = per_task[per_task["warmth"] == warmth]
    fig, axes = plt.subplots(1, len(measures), figsize=(4.5 * len(measures), 4), squeeze=False)
    jdks = sorted(per_task["jdk"].unique())
    cells = per_task[["model", "depth"]].drop_duplicates()
    cells = cells.assign(rank=cells["model"].map(lambda m: catalogue.MODELS.index(m) if m in catalogue.MODELS else len(catalogue.MODELS)))
    cells = list(cells.sort_values(["rank", "depth"])[["model", "depth"]].itertuples(index=False, name=None))
    width = 0.8 / max(len(jdks), 1)
    shade = {jdk: 0.45 + 0.55 * (i + 1) / len(jdks) for i, jdk in enumerate(jdks)}
    for ax, measure in zip(axes[0], measures, strict=True):
        rows = per_task[per_task["measure"] == measure]
        for i, jdk in enumerate(jdks):
            of_jdk = rows[rows["jdk"] == jdk].set_index(["model", "depth"]).reindex(cells)
            ranged = of_jdk["repeats"] >= 3
            errors = [((of_jdk["median"] - of_jdk["low"]) / 1024).where(ranged, 0), ((of_jdk["high"] - of_jdk["median"]) / 1024).where(ranged, 0)]
            ax.bar(
                [c + i * width for c in range(len(cells))],
                of_jdk["median"] / 1024,
                width=width,
                color=[model_colour(model) for model, _ in cells],
                alpha=shade[jdk],
                edgecolor="black",
                linewidth=0.5,
                yerr=errors,
                capsize=2,
            )
        ax.set_xticks([c + 0.4 - width / 2 for c in range(len(cells))], [f"{model}\ndepth {depth}" for model, depth in cells])
        ax.set_ylabel(f"{measure} per parked task (KiB)")
        ax.set_title(f"{measure} per parked task, {warmth}")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(handles=[Patch(facecolor="grey", alpha=shade[jdk], edgecolor="black", label=f"JDK {jdk}") for jdk in jdks], fontsize=7)
    fig.tight_layout()
    return fig


def floor_steps(steps: pd.DataFrame, column: str, label: str):
    """`column` (MiB) against the tasks parked, every JVM of the run a line: one panel a JDK, one colour a model,
    solid at depth 0 and dashed deeper, a cold JVM's lighter. What each slope in the table is fitted to."""
    jdks = sorted(steps["jdk"].unique())
    fig, axes = plt.subplots(1, max(len(jdks), 1), figsize=(4.5 * max(len(jdks), 1), 4), squeeze=False, sharey=True)
    for ax, jdk in zip(axes[0], jdks, strict=True):
        seen = set()
        for (model, depth, warmth, _repeat), jvm in steps[steps["jdk"] == jdk].groupby(["model", "depth", "warmth", "repeat"]):
            jvm = jvm.sort_values("tasks")
            name = f"{model}, depth {depth}, {warmth}"
            ax.plot(
                jvm["tasks"],
                jvm[column] / MIB,
                "o-" if depth == 0 else "s--",
                color=model_colour(model),
                markersize=3,
                linewidth=1,
                alpha=0.8 if warmth == "warm" else 0.35,
                label=None if name in seen else name,
            )
            seen.add(name)
        ax.set_title(f"JDK {jdk}")
        ax.set_xlabel("tasks parked")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel(f"{label} (MiB)")
    fig.suptitle(f"{label} at each step, every JVM")
    fig.tight_layout()
    return fig


def client_threads(medians: pd.DataFrame):
    """New unparked threads per client at each number of calls in flight (median, whiskers min to max); a log axis, so 1 and 500 both show."""
    clients = medians[medians["requests"] == medians["requests"].max()].sort_values("threads")["client"].tolist()
    counts = sorted(medians["requests"].unique())
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(clients) * len(counts) + 1))
    height = 0.8 / len(counts)
    for i, n in enumerate(counts):
        rows = medians[medians["requests"] == n].set_index("client").reindex(clients)
        ys = [c + i * height for c in range(len(clients))]
        errors = [rows["threads"] - rows["threads_min"], rows["threads_max"] - rows["threads"]]
        ax.barh(ys, rows["threads"], height=height, xerr=errors, capsize=2, label=f"{n} calls in flight")
    ax.set_yticks([c + 0.4 - height / 2 for c in range(len(clients))], clients)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlim(0, medians["threads_max"].max() * 2 + 1)
    ax.set_xlabel("new threads alive and not parked, one second in (log scale)")
    ax.set_title("Threads each client blocks while its calls wait")
    ax.legend()
    ax.grid(alpha=0.3, axis="x")
    return fig


def client_downloads(downloads: pd.DataFrame, size: int, label: str):
    """MB/s of each client (and curl) downloading one body size from each server: median bars, whiskers min to max."""
    timed = downloads[(downloads["repeat"] > 0) & (downloads["sizeBytes"] == size) & downloads["error"].isna()]
    stats = timed.groupby(["client", "server"])["mbPerSecond"].agg(["median", "min", "max"]).reset_index()
    clients = timed.groupby("client")["mbPerSecond"].median().sort_values().index.tolist()
    servers = catalogue.order(list(stats["server"].unique()))
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(clients) + 1.2))
    height = 0.8 / max(len(servers), 1)
    for i, server in enumerate(servers):
        rows = stats[stats["server"] == server].set_index("client").reindex(clients)
        ys = [c + i * height for c in range(len(clients))]
        ax.barh(
            ys,
            rows["median"],
            height=height,
            color=catalogue.colour(server),
            label=f"from {server}",
            xerr=[rows["median"] - rows["min"], rows["max"] - rows["median"]],
            capsize=2,
        )
    ax.set_yticks([c + 0.4 - height / 2 for c in range(len(clients))], clients)
    ax.set_xlabel("MB/s (decimal megabytes a second)")
    ax.set_title(f"Downloading {label}, one at a time")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    return fig


def io_times(scores: pd.DataFrame):
    """Milliseconds for one whole read or write, per IO path (median bars, whiskers min to max), file reads above socket writes."""
    s = scores.sort_values(["group", "median_ms"], ascending=[False, False])
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(s) + 1.2))
    colours = {"file read": "tab:purple", "socket write": "tab:orange"}
    ax.barh(
        s["path"],
        s["median_ms"],
        color=[colours.get(g, "tab:gray") for g in s["group"]],
        xerr=[s["median_ms"] - s["min_ms"], s["max_ms"] - s["median_ms"]],
        capsize=2,
    )
    for group, colour in colours.items():
        ax.barh([], [], color=colour, label=group)
    size = int(s["size_bytes"].iloc[0]) if not s.empty else 0
    ax.set_xlabel(f"ms for one whole read or write of {size / MIB:g} MiB (lower is faster)")
    ax.set_title("IO paths: time to move the whole file or body")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    return fig


def sweep_curves(run, workload: str):
    """The concurrency sweep on one workload, requests in flight along and every figure up (log scales): throughput with C/D
    dashed (Little's law), latency p99, and the server's peak threads; one line a server, its points the medians across passes,
    whiskers their range."""

    def values_of(figure: str) -> pd.DataFrame:
        values = sweep.across_passes(run, figure)
        return values[values["workload"] == workload]

    def reference(ax, figure: str, values: pd.DataFrame) -> None:
        if figure.startswith("throughput") and not values.empty:
            delay_ms = run.manifest.settings.delay_ms
            c = sorted(values["concurrency"].unique())
            ax.plot(c, [x * 1000 / delay_ms for x in c], linestyle="--", color="grey", label="C/D (Little's law)")

    panels = [("throughput (/s)", True), ("latency p99 (ms)", True), ("threads (peak)", True)]
    return medians_panels(panels, values_of, "concurrency", "requests in flight (C)", f"/{workload}", log_x=True, reference=reference)


def sweep_cpu_by_thread(run, workload: str):
    """Where each server's CPU went on one workload: a bar a server and concurrency, the server's CPU per request (µs, the
    median across passes) split by its thread families, the sweep.FAMILIES_NAMED largest over the workload by name, the rest as one.
    None for a folder from before threads.csv."""
    values = sweep.cpu_by_thread_family(run)
    values = values[values["workload"] == workload]
    if values.empty:
        return None
    named = sweep.named_families(values)
    values = values.assign(family=values["family"].where(values["family"].isin(named), sweep.OTHER_FAMILIES))
    wide = values.pivot_table(index=["server", "concurrency"], columns="family", values="µs per request", aggfunc="sum", sort=False, fill_value=0.0)
    wide = wide[[f for f in [*named, sweep.OTHER_FAMILIES] if f in wide.columns]]
    fig, ax = plt.subplots(figsize=(8, 0.42 * len(wide) + 1.8))
    ys = list(range(len(wide)))[::-1]
    left = pd.Series(0.0, index=wide.index)
    colours = plt.get_cmap("tab10")
    for i, family in enumerate(wide.columns):
        ax.barh(ys, wide[family], left=left, height=0.7, color="lightgrey" if family == sweep.OTHER_FAMILIES else colours(i), label=family)
        left = left + wide[family]
    ax.set_yticks(ys, [f"{catalogue.label(server)}, C={c:,}" for server, c in wide.index])
    ax.set_xlabel("server CPU per request (µs), the median across passes, by thread family")
    ax.set_title(f"/{workload}: where each server's CPU went")
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def autobahn_totals(run):
    """Autobahn's section 9 per arm (autobahnperf.summary's order, top down): each pass's cases summed (s) a dot, the median
    across passes a bar, in the arm's server's colour; an arm without some of the lab's changes hatched."""
    values = autobahnperf.summary(run)
    per_pass = autobahnperf.totals(run)
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(values) + 1.4))
    ys = list(range(len(values)))[::-1]
    for y, row in zip(ys, values.itertuples(), strict=True):
        colour = autobahnperf.colour(run, row.arm)
        without = any(a.name == row.arm and a.as_shipped for a in run.arms)
        ax.barh(y, row.median_ms / 1000, height=0.6, color=colour, alpha=0.45, edgecolor=colour, hatch="//" if without else None)
        passes = per_pass[per_pass["arm"] == row.arm]
        ax.scatter(passes["total_ms"] / 1000, [y] * len(passes), color=colour, edgecolor="black", linewidth=0.5, zorder=3, s=22)
    a_pass = ax.scatter([], [], color="grey", edgecolor="black", linewidth=0.5, s=22, label="a pass")
    handles = [a_pass, Patch(facecolor="grey", alpha=0.45, label="median across passes")]
    ax.set_yticks(ys, values["label"])
    ax.set_xlim(left=0)
    ax.set_xlabel("section 9's cases, their durations summed (s; lower is faster)")
    ax.set_title("Autobahn section 9: large messages and many frames, echoed")
    ax.legend(handles=handles, loc="lower right", fontsize=7)
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig
