"""The bench report's plots of load: series over time, latency, CPU, the latency-throughput curve, and a comparison's ratios. Each
with a title, axis units and a legend, one colour per server throughout (servers.json's). Memory's plots are memory_plots', the
grid's grid_plots', the experiments' experiment_plots'."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch

from .. import stats
from ..bench import cpu, latency, runtime
from ..curve import curve
from ..folder import catalogue, repeats
from ..folder.run import Run
from ..verdict import perpass
from .plot_style import medians_panels, plain_log_axis


def over_time(run: Run, series: str, metric: str, label: str, unit: str, scale: float = 1.0):
    """One metric over each server's run (seconds since its JVM started): from `proc` (a column) or `jfr` (a metric)."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for server in run.comparable:
        frame = server.proc if series == "proc" else server.jfr
        if frame.empty:
            continue
        if series == "proc":
            xs, ys = frame["time_s"], frame[metric]
        else:
            rows = frame[frame["metric"] == metric]
            xs, ys = rows["time_s"], rows["value"]
        ax.plot(xs, ys / scale, color=catalogue.colour(server.server), label=server.name)
    ax.set_title(f"{label} over the run")
    ax.set_xlabel("seconds since the server started")
    ax.set_ylabel(f"{label} ({unit})")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def latency_percentiles(table: pd.DataFrame, endpoint: str):
    """p50 to max for each server run, side by side, on a log scale (tails differ by orders of magnitude)."""
    fig, ax = plt.subplots(figsize=(8, 4))
    columns = ["p(50)", "p(90)", "p(99)", "p(99.9)", "max"]
    width = 0.8 / max(len(table), 1)
    for i, (_, row) in enumerate(table.iterrows()):
        xs = [j + i * width for j in range(len(columns))]
        ax.bar(xs, [row[c] for c in columns], width=width, color=catalogue.colour(row["server"]), label=row["run"])
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(columns))], columns)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.set_title(f"/{endpoint} latency percentiles")
    ax.set_ylabel("latency (ms, log scale)")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    return fig


def k6_against_wire(per_pass: pd.DataFrame):
    """Each pass's /json p99 as k6 timed it against the same requests' p99 on the wire, one point per pass, on log scales. On the
    diagonal k6 saw what the server did; above it, the rest of k6's time was spent on the load generator's side."""
    wide = per_pass.pivot_table(index=["run folder", "pass", "label", "server"], columns="figure", values="value", aggfunc="first")
    k6, wire = perpass.JSON_P99.key, perpass.JSON_WIRE_P99.key
    if wire not in wide.columns or wide[wire].isna().all():
        return None
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for (_, _, label, server), row in wide.iterrows():
        ax.scatter(row[wire], row[k6], color=catalogue.colour(server), label=label, s=25)
    low = min(wide[wire].min(), wide[k6].min()) / 1.5
    high = max(wide[wire].max(), wide[k6].max()) * 1.5
    ax.plot([low, high], [low, high], color="grey", linewidth=0.8, linestyle="--", label="k6 = wire")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis)
    plain_log_axis(ax.yaxis)
    ax.set_xlabel("/json p99 on the wire (ms, log scale)")
    ax.set_ylabel("/json p99 as k6 timed it (ms, log scale)")
    ax.set_title("Each pass: k6's p99 against the wire's")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def latency_over_time(run: Run, endpoint: str):
    """Per second of each server's k6 run: /endpoint p50 and p99 (log scale), and the sockets opened so far on a second axis."""
    servers = run.comparable
    fig, axes = plt.subplots(len(servers), 1, figsize=(9, 2.6 * max(len(servers), 1)), sharex=True, squeeze=False)
    for ax, server in zip(axes[:, 0], servers, strict=True):
        frame = latency.per_second(server, endpoint)
        colour = catalogue.colour(server.server)
        if frame["requests"].sum() > 0:
            ax.plot(frame["second"], frame["p99_ms"], color=colour, label="p99")
            ax.plot(frame["second"], frame["p50_ms"], color=colour, alpha=0.45, linestyle="--", label="p50")
            ax.set_yscale("log")
            plain_log_axis(ax.yaxis)
        else:
            ax.text(0.5, 0.5, "no samples", transform=ax.transAxes, ha="center")
        ax.set_ylabel("ms (log)")
        ax.set_title(f"{server.name}: /{endpoint} latency per second", fontsize=10)
        ax.grid(alpha=0.3)
        sockets = ax.twinx()
        sockets.fill_between(frame["second"], frame["sockets_opened"], color="grey", alpha=0.15, label="sockets opened")
        sockets.set_ylabel("sockets")
        handles, labels = ax.get_legend_handles_labels()
        more_handles, more_labels = sockets.get_legend_handles_labels()
        ax.legend(handles + more_handles, labels + more_labels, loc="upper left", fontsize=8)
    axes[-1, 0].set_xlabel("seconds since k6 started")
    fig.tight_layout()
    return fig


def jvm_cpu(run: Run):
    """Each server's JVM CPU (user plus system, from JFR) over its run, in % of all the host's cores."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for server in run.comparable:
        cpu = runtime.jvm_cpu(server)
        ax.plot(cpu["time_s"], 100 * cpu["cpu"], color=catalogue.colour(server.server), label=server.name)
    ax.set_title("JVM CPU over the run (user + system)")
    ax.set_xlabel("seconds since the server started")
    ax.set_ylabel("CPU (% of all cores)")
    ax.set_ylim(bottom=0)
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


_PROCESS_COLOURS = {"server": "black", "k6": "tab:orange", "stub": "tab:cyan", "harness": "tab:olive"}


def cpu_of_every_process(runs: list[Run]):
    """One panel per pass (a row per server, a column per repeat): the cores the server, k6, the stub and the harness used each
    second, and the host's steal in cores (shaded), the /json phase shaded grey; a pass whose load generator was the bottleneck, or whose
    server was saturated, is titled so."""
    cells: dict[str, list] = {}
    for run, server, base in repeats.each_pass(runs):
        cells.setdefault(base["label"], []).append((run, server))
    width = max((len(v) for v in cells.values()), default=1)
    fig, axes = plt.subplots(max(len(cells), 1), width, figsize=(3.4 * width, 2.3 * max(len(cells), 1)), squeeze=False, sharey=True)
    for row, (label, passes) in enumerate(cells.items()):
        for column in range(width):
            ax = axes[row][column]
            if column >= len(passes):
                ax.axis("off")
                continue
            run, server = passes[column]
            frame = server.cpu
            host_cpus = run.manifest.provenance.host.cpus
            if frame.empty:
                ax.text(0.5, 0.5, "no cpu.csv", transform=ax.transAxes, ha="center", fontsize=8)
            else:
                in_json = frame[frame["phase"] == cpu.PHASE]["time_s"]
                if not in_json.empty:
                    ax.axvspan(in_json.min(), in_json.max(), color="grey", alpha=0.12, label="/json phase")
                ax.fill_between(frame["time_s"], 0, frame["steal"].fillna(0) * host_cpus, color="tab:red", alpha=0.3, label="steal (cores)")
                for process, colour in _PROCESS_COLOURS.items():
                    if frame[process].notna().any():
                        ax.plot(frame["time_s"], frame[process], color=colour, linewidth=1, label=process)
            why_full = cpu.saturated(server, cpu.server_cpu_count(run))
            full = "CPUs shared" if cpu.shared_by_others(why_full) else "saturated"
            marks = [what for what, why in (("k6 the bottleneck", cpu.bottleneck(server)), (full, why_full)) if why]
            ax.set_title(": ".join([server.name, ", ".join(marks)] if marks else [server.name]), fontsize=8, color="#b00020" if marks else "black")
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=7)
            if column == 0:
                ax.set_ylabel(f"{label}\ncores", fontsize=8)
    handles, labels = next(((h, lab) for ax in axes.flat for h, lab in [ax.get_legend_handles_labels()] if h), ([], []))
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=7, frameon=False)
    fig.supxlabel("seconds since the server started", fontsize=8, y=0.04)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def rate_curves(per_step: pd.DataFrame, endpoint: str, bound_ms: float):
    """The latency-throughput curve of one endpoint, offered rate along: what each server achieved (the offered rate dashed), its p99
    on the wire (log scale, the profile's bound dashed), and its CPU busy; one line a server, its points the medians across passes,
    whiskers their range."""

    def values_of(figure: str) -> pd.DataFrame:
        values = curve.across_passes(per_step, figure)
        return values[values["endpoint"] == endpoint]

    def reference(ax, figure: str, values: pd.DataFrame) -> None:
        offered = sorted(values["offered_per_s"].unique())
        if figure.startswith("achieved") and offered:
            ax.plot(offered, offered, linestyle="--", color="grey", label="offered")
        if figure.startswith("p99") and not math.isnan(bound_ms):
            ax.axhline(bound_ms, linestyle="--", color="grey", label=f"bound ({bound_ms:g} ms)")

    panels = [("achieved (req/s)", False), ("p99 on the wire (ms)", True), ("server CPU busy (%)", False)]
    return medians_panels(panels, values_of, "offered_per_s", "offered (req/s)", f"/{endpoint}", reference=reference)


def ratios(pairs: list):
    """compare.pairs as B / A on a log axis, one row per figure, one colour per server: the bar runs from B's lowest pass over A's
    highest to B's highest over A's lowest, and a filled point is one whose ranges across passes are apart. Pairs with no ratio
    (settings that differ, a server that failed) are left out; the table says why."""
    drawn = [p for p in pairs if not math.isnan(p.ratio) and p.ratio > 0]
    figures = list(dict.fromkeys(p.figure for p in drawn))
    servers = list(dict.fromkeys(p.server for p in drawn))
    fig, ax = plt.subplots(figsize=(8, 0.45 * max(len(figures), 1) + 1.2))
    step = 0.7 / max(len(servers), 1)
    for p in drawn:
        y = figures.index(p.figure) + (servers.index(p.server) - (len(servers) - 1) / 2) * step
        colour = catalogue.colour(p.server)
        if p.a.has_interval and p.b.has_interval and p.a.low > 0 and p.a.high > 0:
            low, high = p.b.low / p.a.high, p.b.high / p.a.low
            ax.plot([max(low, 1e-3), high], [y, y], "-", color=colour, alpha=0.6)
        apart = stats.separated(p.a, p.b) == "apart across passes"
        ax.plot(p.ratio, y, "o", color=colour, markerfacecolor=colour if apart else "white")
    ax.axvline(1.0, color="grey", linewidth=1)
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    ax.set_yticks(range(len(figures)), [f.label for f in figures])
    ax.invert_yaxis()
    ax.set_xlabel("B / A (median over median; below 1: B's figure is lower)")
    ax.set_title("Each figure, B against A (filled: every pass of one beyond every pass of the other)")
    ax.legend(handles=[Patch(color=catalogue.colour(s), label=catalogue.label(s)) for s in servers], loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3, axis="x")
    return fig
