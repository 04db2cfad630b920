"""The report's plots: each with a title, axis units and a legend, one colour per server throughout (servers.json's)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from . import catalogue, cpu, curve, latency, memory, perpass, provenance, repeats, runtime, sweep
from .run import Run

MIB = 1 << 20


def _plain_log_axis(axis) -> None:
    """A log axis labelled 1, 2, 5, 10, 20, 50 ... rather than 2x10^0, and no crowded minor labels."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def _points_and_line(ax, server, points, column: str, label: str) -> None:
    """A server's measured points of `column` (MiB) against open sockets, and the least-squares line through them from 0.

    A step that did not settle is drawn hollow, and the line leaves it out.
    """
    colour = catalogue.colour(server.server)
    settled = points["settled"].astype(bool) if "settled" in points.columns else pd.Series(True, index=points.index)
    ax.plot(points.loc[settled, "open_sockets"], points.loc[settled, column] / MIB, "o", color=colour, label=label)
    if not settled.all():
        unsettled = points[~settled]
        ax.plot(unsettled["open_sockets"], unsettled[column] / MIB, "o", color=colour, markerfacecolor="none", label=f"{server.name}: not settled")
    fit = memory.per_connection(points, column)
    if fit.slope == fit.slope:
        xs = [0, points["open_sockets"].max()]
        ax.plot(xs, [fit.at(x) / MIB for x in xs], "-", color=colour, alpha=0.6, label=f"{server.name}: {fit.slope / 1024:.1f} KiB/socket")


def memory_against_sockets(run: Run, column: str, label: str):
    """`column` (rss_bytes, pss_bytes or heap_used_bytes) at each step's plateau against open sockets, with the fitted line."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for server in run.comparable:
        points = memory.plateaus(server)
        if points.empty:
            continue
        _points_and_line(ax, server, points, column, f"{server.name} plateaus")
    ax.set_title(f"{label} against open idle sockets")
    ax.set_xlabel("open idle WebSockets")
    ax.set_ylabel(f"{label} (MiB)")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


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
    _plain_log_axis(ax.yaxis)
    ax.set_title(f"/{endpoint} latency percentiles")
    ax.set_ylabel("latency (ms, log scale)")
    ax.legend()
    ax.grid(alpha=0.3, axis="y")
    return fig


def k6_against_wire(per_pass: pd.DataFrame):
    """Each pass's /json p99 as k6 timed it against the same requests' p99 on the wire, one point per pass, on log scales. On the
    diagonal k6 saw what the server did; above it, the rest of k6's time was spent on the load generator's side."""
    wide = per_pass.pivot_table(index=["run folder", "pass", "label", "server"], columns="figure", values="value", aggfunc="first")
    k6, wire = perpass.JSON_P99.name, perpass.JSON_WIRE_P99.name
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
    _plain_log_axis(ax.xaxis)
    _plain_log_axis(ax.yaxis)
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
            _plain_log_axis(ax.yaxis)
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


def live_heap_against_sockets(run: Run):
    """The live heap after each GC during the socket steps, against the sockets open then, with the fitted line."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for server in run.comparable:
        points = memory.live_heap_points(server)
        if points.empty:
            continue
        _points_and_line(ax, server, points, "heap_after_gc_bytes", f"{server.name}: after each GC")
    ax.set_title("Live heap (after GC) against open idle sockets")
    ax.set_xlabel("open idle WebSockets")
    ax.set_ylabel("heap after GC (MiB)")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def _model_colour(model: str) -> str:
    """A model's colour: that of the catalogue's first server of the model, so a model looks the same here as in the bench report."""
    return next((s.colour for s in catalogue.servers() if s.model == model), catalogue.UNKNOWN_COLOUR)


def floor_per_task(per_task: pd.DataFrame, measures: tuple[str, ...] = ("live heap", "RSS")):
    """KiB per parked task (median bars, whiskers the range over the repeats, from 3 repeats), one panel a measure:
    model and depth along, one bar a JDK, the older JDK's lighter."""
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
                color=[_model_colour(model) for model, _ in cells],
                alpha=shade[jdk],
                edgecolor="black",
                linewidth=0.5,
                yerr=errors,
                capsize=2,
            )
        ax.set_xticks([c + 0.4 - width / 2 for c in range(len(cells))], [f"{model}\ndepth {depth}" for model, depth in cells])
        ax.set_ylabel(f"{measure} per parked task (KiB)")
        ax.set_title(f"{measure} per parked task")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(handles=[Patch(facecolor="grey", alpha=shade[jdk], edgecolor="black", label=f"JDK {jdk}") for jdk in jdks], fontsize=7)
    fig.tight_layout()
    return fig


def floor_steps(steps: pd.DataFrame, column: str, label: str):
    """`column` (MiB) against the tasks parked, every JVM of the run a line: one panel a JDK, one colour a model,
    solid at depth 0 and dashed deeper. What each slope in the table is fitted to."""
    jdks = sorted(steps["jdk"].unique())
    fig, axes = plt.subplots(1, max(len(jdks), 1), figsize=(4.5 * max(len(jdks), 1), 4), squeeze=False, sharey=True)
    for ax, jdk in zip(axes[0], jdks, strict=True):
        seen = set()
        for (model, depth, _repeat), jvm in steps[steps["jdk"] == jdk].groupby(["model", "depth", "repeat"]):
            jvm = jvm.sort_values("tasks")
            name = f"{model}, depth {depth}"
            ax.plot(
                jvm["tasks"],
                jvm[column] / MIB,
                "o-" if depth == 0 else "s--",
                color=_model_colour(model),
                markersize=3,
                linewidth=1,
                alpha=0.8,
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


# ---- the engine x model grid (labanalysis.grid) ----------------------------------------------------

_ENGINE_MARKERS = ["o", "s", "^", "D", "v"]


def _spread(values) -> bool:
    """Whether positive values span enough (50x) that a log axis shows them all."""
    positive = [v for v in values if v == v and v > 0]
    return len(positive) >= 2 and max(positive) / min(positive) > 50


def grid_figures(per_server: pd.DataFrame, headlines: list[str], models: list[str], engines: list[str]):
    """One panel per headline figure: models along x, one marker shape per engine, each server's median with whiskers over its
    passes' range; hollow where there is one pass (no interval)."""
    columns = 4 if len(headlines) > 5 else 3
    rows = -(-(len(headlines) + 1) // columns)  # one panel more, for the legend
    fig, axes = plt.subplots(rows, columns, figsize=(3.7 * columns, 3.1 * rows))
    panels = list(axes.flat)
    for spare in panels[len(headlines) + 1 :]:
        spare.axis("off")
    width = 0.5 / max(len(engines), 1)
    for ax, figure in zip(panels, headlines, strict=False):
        rows = per_server[(per_server["figure"] == figure) & per_server["median"].notna()]
        for _, r in rows.iterrows():
            e = engines.index(r["engine"]) if r["engine"] in engines else 0
            x = models.index(r["model"]) + (e - (len(engines) - 1) / 2) * width if r["model"] in models else len(models)
            colour = catalogue.colour(r["server"])
            one = r["passes"] < 2
            errors = None if one else [[r["median"] - r["low"]], [r["high"] - r["median"]]]
            ax.errorbar(
                [x], [r["median"]], yerr=errors, fmt=_ENGINE_MARKERS[e % len(_ENGINE_MARKERS)], color=colour, capsize=3,
                markerfacecolor="none" if one else colour, markersize=7,
            )  # fmt: skip
        if _spread(rows["median"]):
            ax.set_yscale("log")
            _plain_log_axis(ax.yaxis)
        elif (rows["median"] >= 0).all():
            ax.set_ylim(bottom=0)
        ax.set_xticks(range(len(models)), models)
        ax.set_xlim(-0.5, len(models) - 0.5)
        ax.set_title(figure, fontsize=9)
        ax.grid(alpha=0.3, axis="y")
    legend = panels[len(headlines)]
    legend.axis("off")
    for e, engine in enumerate(engines):
        legend.plot([], [], _ENGINE_MARKERS[e % len(_ENGINE_MARKERS)], color="black", label=f"engine: {engine}")
    for server, label in per_server.drop_duplicates("server")[["server", "label"]].itertuples(index=False):
        legend.plot([], [], "s", color=catalogue.colour(server), label=label)
    legend.plot([], [], "o", color="black", markerfacecolor="none", label="one pass: no interval")
    legend.legend(loc="center", fontsize=8, frameon=False)
    fig.suptitle("Each server's headline figures: models along x, engines by marker (median, whiskers: range over passes)")
    fig.tight_layout()
    return fig


def effects(effects: pd.DataFrame, headlines: list[str], title: str):
    """One panel per headline figure: each pair's difference (A less B) with its conservative interval; hollow where there is no
    interval (one pass), and a line at 0, which an interval that shows no difference crosses."""
    figures = [f for f in headlines if (effects["figure"] == f).any()]
    pairs = effects.drop_duplicates(["within", "A", "B", "A server", "B server"])
    fig, axes = plt.subplots(len(figures), 1, figsize=(8, len(figures) * (0.55 + 0.32 * len(pairs)) + 0.6), squeeze=False)
    for ax, figure in zip(axes[:, 0], figures, strict=True):
        rows = effects[effects["figure"] == figure].reset_index(drop=True)
        for y, r in rows.iterrows():
            has_interval = r["low"] == r["low"]
            errors = [[r["difference"] - r["low"]], [r["high"] - r["difference"]]] if has_interval else None
            colour = "black" if has_interval else "grey"
            ax.errorbar([r["difference"]], [y], xerr=errors, fmt="o", color=colour, capsize=3, markerfacecolor=colour if has_interval else "none")
        ax.axvline(0, color="tab:red", linewidth=0.8)
        ax.set_yticks(range(len(rows)), [f"{r['within']}: {r['A']} less {r['B']}" for _, r in rows.iterrows()], fontsize=8)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.invert_yaxis()
        ax.set_title(figure, fontsize=9)
        ax.grid(alpha=0.3, axis="x")
    fig.suptitle(f"{title}: A less B, whiskers the interval over passes (hollow: one pass, no interval)", fontsize=10)
    fig.tight_layout()
    return fig


def decomposition(decomposed: pd.DataFrame):
    """Per measure, per server: its memory per idle socket as the model's floor (hatched, depth 0) and the rest (the engine's and
    its WebSocket session's), whiskers over its passes' range, and a tick at the depth-20 floor."""
    measured = decomposed[decomposed["per socket"].notna()]
    floored = measured["floor"].notna().any()
    # Without any floor there is nothing to split: RSS alone, said to be whole.
    measures = list(dict.fromkeys(measured.loc[measured["floor"].notna(), "measure"])) if floored else ["RSS"]
    fig, axes = plt.subplots(len(measures), 1, figsize=(8, max(len(measures), 1) * (0.7 + 0.45 * measured["server"].nunique()) + 0.5), squeeze=False)
    for ax, measure in zip(axes[:, 0], measures, strict=True):
        rows = measured[measured["measure"] == measure].reset_index(drop=True)
        for y, r in rows.iterrows():
            colour = catalogue.colour(r["server"])
            total = r["per socket"] / 1024
            floor = r["floor"] / 1024 if r["floor"] == r["floor"] else 0.0
            ax.barh(y, floor, color=colour, alpha=0.35, hatch="//", edgecolor=colour)
            ax.barh(y, total - floor, left=floor, color=colour)
            if r["per socket low"] == r["per socket low"]:
                ax.errorbar(
                    [total], [y], xerr=[[total - r["per socket low"] / 1024], [r["per socket high"] / 1024 - total]], color="black", capsize=3
                )
            if r["floor at depth 20"] == r["floor at depth 20"]:
                ax.plot([r["floor at depth 20"] / 1024], [y], "|", color="black", markersize=14)
        ax.set_yticks(range(len(rows)), rows["label"], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"{measure} per idle socket (KiB)")
        ax.grid(alpha=0.3, axis="x")
    if not floored:
        axes[0, 0].set_title("Memory per idle socket, whole: no floor to split it by (run make floor)")
        fig.tight_layout()
        return fig
    handles = [
        plt.Rectangle((0, 0), 1, 1, facecolor="grey", alpha=0.35, hatch="//", edgecolor="grey", label="the model's floor (a parked task, depth 0)"),
        plt.Rectangle((0, 0), 1, 1, color="grey", label="the rest: engine + WebSocket session"),
        plt.Line2D([], [], marker="|", linestyle="none", color="black", markersize=12, label="the floor 20 frames deep"),
    ]
    axes[0, 0].set_title("Memory per idle socket: the model's floor and the rest")
    fig.legend(handles=handles, fontsize=8, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def per_task_claims(floor: pd.DataFrame, task_claims: list, about: float):
    """One panel per memory-per-task claim: make floor's bytes per parked task for the claim's model (median, whiskers over its
    repeats) per measure, JDK and depth, on a log axis, against the claim (dark band) and the quarter either side it may miss by
    and still hold (light band)."""
    fig, axes = plt.subplots(len(task_claims), 1, figsize=(8, 1.2 + 1.3 * len(task_claims)), squeeze=False)
    for ax, claim in zip(axes[:, 0], task_claims, strict=True):
        rows = floor[(floor["model"] == claim.model) & floor["measure"].isin(claim.floor_measures)].sort_values(["measure", "jdk", "depth"])
        rows = rows.reset_index(drop=True)
        ax.axvspan(claim.low * (1 - about), claim.high * (1 + about), color="tab:green", alpha=0.12)
        ax.axvspan(claim.low, claim.high * 1.02 if claim.low == claim.high else claim.high, color="tab:green", alpha=0.35)
        for y, r in rows.iterrows():
            ax.errorbar([r["median"]], [y], xerr=[[r["median"] - r["low"]], [r["high"] - r["median"]]], fmt="o", color="black", capsize=3)
        ax.set_yticks(range(len(rows)), [f"{r['measure']}, JDK {r['jdk']}, depth {r['depth']}" for _, r in rows.iterrows()], fontsize=8)
        ax.set_ylim(-0.6, max(len(rows), 1) - 0.4)
        ax.invert_yaxis()
        ax.set_xscale("log")
        _plain_log_axis(ax.xaxis)
        ax.set_title(f"{claim.model}: the seed says {claim.quoted}", fontsize=9)
        ax.grid(alpha=0.3, axis="x")
        if rows.empty:
            ax.text(0.5, 0.5, "not in the floor", transform=ax.transAxes, ha="center")
    axes[-1, 0].set_xlabel("bytes per parked task (log scale); dark: the claim, light: within a quarter of it")
    fig.tight_layout()
    return fig


# ---- issue 16: memory split into its parts, and the CPU of every process ---------------------------

# The stack's segments, bottom up: memory.csv's components in the parts of COMPONENTS, each a shade of its part's colour.
_PART_COLOURS = {
    "heap": ["tab:blue"],
    "native": ["#d95f02", "#e6863b", "#f0a868", "#f6c493", "#fbdcbc", "#c2410c"],
    "kernel": ["#4d4d4d", "#8c8c8c", "#bdbdbd"],
}


def memory_parts(per_server: pd.DataFrame):
    """Per server (one row each), its bytes per open socket stacked from its parts, the median across passes of each: the live
    heap, NMT's native categories other than the heap, and the kernel's memory; RSS and PSS per socket as markers beside the stack,
    with whiskers over their passes' range. A part below 0 (a slope that came out negative) is drawn left of 0."""
    servers = list(dict.fromkeys(per_server["label"]))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.9 * max(len(servers), 1)))
    parts = [(c, part) for c, (_, part) in memory.COMPONENTS.items() if part is not None]
    colours = {part: iter(shades) for part, shades in _PART_COLOURS.items()}
    colour_of = {c: next(colours[part]) for c, part in parts}
    drawn = set()
    for y, label in enumerate(servers):
        rows = per_server[per_server["label"] == label].set_index("component")
        right = left = 0.0
        for component, _ in parts:
            if component not in rows.index or rows.loc[component, "median"] != rows.loc[component, "median"]:
                continue
            kib = rows.loc[component, "median"] / 1024
            start = right if kib >= 0 else left + kib
            ax.barh(y, abs(kib), left=start, color=colour_of[component], edgecolor="white", linewidth=0.5,
                    label=None if component in drawn else memory.COMPONENTS[component][0])  # fmt: skip
            drawn.add(component)
            right, left = (right + kib, left) if kib >= 0 else (right, left + kib)
        for offset, (measure, marker) in zip((-0.28, 0.28), (("RSS", "D"), ("PSS", "s")), strict=True):
            if measure not in rows.index or rows.loc[measure, "median"] != rows.loc[measure, "median"]:
                continue
            r = rows.loc[measure]
            errors = [[(r["median"] - r["low"]) / 1024], [(r["high"] - r["median"]) / 1024]] if r["low"] == r["low"] else None
            ax.errorbar([r["median"] / 1024], [y + offset], xerr=errors, fmt=marker, color="black", markerfacecolor="white", capsize=3,
                        label=None if measure in drawn else f"{measure} per socket (not a sum of the parts)")  # fmt: skip
            drawn.add(measure)
    ax.set_yticks(range(len(servers)), servers, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlabel("KiB per open socket (median across passes; whiskers: RSS's and PSS's range across passes)")
    ax.set_title("Memory per open socket, by part")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    fig.tight_layout()
    return fig


def memory_components_against_sockets(runs: list[Run], measures: tuple[str, ...] = ("live heap", "native (NMT, not the heap)", "RSS")):
    """Each measure (MiB) at every snapshot against the sockets the server held open, one panel a measure, one line a pass (its
    server's colour): what each per-socket slope is fitted to, and how far apart the passes lie."""
    fig, axes = plt.subplots(1, len(measures), figsize=(4 * len(measures), 3.6), squeeze=False)
    for ax, measure in zip(axes[0], measures, strict=True):
        seen = set()
        for _, server, base in repeats.each_pass(runs):
            points = memory.snapshots(server)
            if measure not in points.columns or points[measure].isna().all():
                continue
            ax.plot(points["open_sockets"], points[measure] / MIB, "o-", color=catalogue.colour(server.server), markersize=3, linewidth=1,
                    alpha=0.8, label=None if server.server in seen else base["label"])  # fmt: skip
            seen.add(server.server)
        ax.set_title(measure, fontsize=9)
        ax.set_xlabel("sockets open (the server's count)")
        ax.grid(alpha=0.3)
        if seen:
            ax.legend(fontsize=7)
    axes[0][0].set_ylabel("MiB at the snapshot (after a full GC)")
    fig.tight_layout()
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
            host_cpus = provenance.of(run.manifest)["host"].get("cpus") or 1
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
            marks = [what for what, why in (("k6 the bottleneck", cpu.bottleneck(server)), ("saturated", cpu.saturated(server))) if why]
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


def ratios(pairs: list):
    """compare.pairs as B / A on a log axis, one row per figure, one colour per server: the bar runs from B's lowest pass over A's
    highest to B's highest over A's lowest, and a filled point is one whose ranges across passes are apart. Pairs with no ratio
    (settings that differ, a server that failed) are left out; the table says why."""
    drawn = [p for p in pairs if p.ratio == p.ratio and p.ratio > 0]
    figures = list(dict.fromkeys(p.figure.name for p in drawn))
    servers = list(dict.fromkeys(p.server for p in drawn))
    fig, ax = plt.subplots(figsize=(8, 0.45 * max(len(figures), 1) + 1.2))
    step = 0.7 / max(len(servers), 1)
    for p in drawn:
        y = figures.index(p.figure.name) + (servers.index(p.server) - (len(servers) - 1) / 2) * step
        colour = catalogue.colour(p.server)
        if p.a.has_interval and p.b.has_interval and p.a.low > 0 and p.a.high > 0:
            low, high = p.b.low / p.a.high, p.b.high / p.a.low
            ax.plot([max(low, 1e-3), high], [y, y], "-", color=colour, alpha=0.6)
        apart = repeats.separated(p.a, p.b) == "apart across passes"
        ax.plot(p.ratio, y, "o", color=colour, markerfacecolor=colour if apart else "white")
    ax.axvline(1.0, color="grey", linewidth=1)
    ax.set_xscale("log")
    _plain_log_axis(ax.xaxis)
    ax.set_yticks(range(len(figures)), figures)
    ax.invert_yaxis()
    ax.set_xlabel("B / A (median over median; below 1: B's figure is lower)")
    ax.set_title("Each figure, B against A (filled: every pass of one beyond every pass of the other)")
    ax.legend(handles=[Patch(color=catalogue.colour(s), label=catalogue.label(s)) for s in servers], loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(alpha=0.3, axis="x")
    return fig


def _medians_with_ranges(ax, values: pd.DataFrame, x: str) -> None:
    """One line a server of `values` (repeats.per_server's columns): its points the medians across passes at each `x`, whiskers
    their range (none at a point measured in one pass)."""
    for server, points in values.groupby("server", sort=False):
        ranged = points["passes"] >= 2
        errors = [(points["median"] - points["low"]).where(ranged, 0), (points["high"] - points["median"]).where(ranged, 0)]
        ax.errorbar(points[x], points["median"], yerr=errors, marker="o", capsize=3, color=catalogue.colour(server), label=catalogue.label(server))


def sweep_curves(run, workload: str):
    """The concurrency sweep on one workload, requests in flight along and every figure up (log scales): throughput with C/D
    dashed (Little's law), latency p99, and the server's peak threads; one line a server, its points the medians across passes,
    whiskers their range."""
    panels = [("throughput (/s)", True), ("latency p99 (ms)", True), ("threads (peak)", True)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (figure, log_y) in zip(axes[0], panels, strict=True):
        values = sweep.across_passes(run, figure)
        values = values[values["workload"] == workload]
        _medians_with_ranges(ax, values, "concurrency")
        if figure.startswith("throughput") and not values.empty:
            delay_ms = run.manifest["settings"]["delayMs"]
            c = sorted(values["concurrency"].unique())
            ax.plot(c, [x * 1000 / delay_ms for x in c], linestyle="--", color="grey", label="C/D (Little's law)")
        ax.set_xscale("log")
        if log_y:
            ax.set_yscale("log")
        _plain_log_axis(ax.xaxis)
        ax.set_xlabel("requests in flight (C)")
        ax.set_ylabel(figure)
        ax.set_title(f"/{workload}: {figure}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def rate_curves(per_step: pd.DataFrame, endpoint: str, bound_ms: float):
    """The latency-throughput curve of one endpoint, offered rate along: what each server achieved (the offered rate dashed), its p99
    on the wire (log scale, the profile's bound dashed), and its CPU busy; one line a server, its points the medians across passes,
    whiskers their range."""
    panels = [("achieved (req/s)", False), ("p99 on the wire (ms)", True), ("server CPU busy (%)", False)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (figure, log_y) in zip(axes[0], panels, strict=True):
        values = curve.across_passes(per_step, figure)
        values = values[values["endpoint"] == endpoint]
        _medians_with_ranges(ax, values, "offered_per_s")
        offered = sorted(values["offered_per_s"].unique())
        if figure.startswith("achieved") and offered:
            ax.plot(offered, offered, linestyle="--", color="grey", label="offered")
        if figure.startswith("p99") and bound_ms == bound_ms:
            ax.axhline(bound_ms, linestyle="--", color="grey", label=f"bound ({bound_ms:g} ms)")
        if log_y:
            ax.set_yscale("log")
            _plain_log_axis(ax.yaxis)
        ax.set_xlabel("offered (req/s)")
        ax.set_ylabel(figure)
        ax.set_title(f"/{endpoint}: {figure}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
