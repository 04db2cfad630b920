"""The bench report's plots of the engine x model grid (labanalysis.verdict.grid): each headline figure per cell, the model and engine
effects, memory per socket split into the model's floor and the rest, and the seed's claims per parked task against make floor."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import pandas as pd

from ..folder import catalogue
from ..verdict import perpass
from .plot_style import plain_log_axis

_ENGINE_MARKERS = ["o", "s", "^", "D", "v"]


def _spread(values) -> bool:
    """Whether positive values span enough (50x) that a log axis shows them all."""
    positive = [v for v in values if not math.isnan(v) and v > 0]
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
            plain_log_axis(ax.yaxis)
        elif (rows["median"] >= 0).all():
            ax.set_ylim(bottom=0)
        ax.set_xticks(range(len(models)), models)
        ax.set_xlim(-0.5, len(models) - 0.5)
        ax.set_title(perpass.label(figure), fontsize=9)
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
            has_interval = not math.isnan(r["low"])
            errors = [[r["difference"] - r["low"]], [r["high"] - r["difference"]]] if has_interval else None
            colour = "black" if has_interval else "grey"
            ax.errorbar([r["difference"]], [y], xerr=errors, fmt="o", color=colour, capsize=3, markerfacecolor=colour if has_interval else "none")
        ax.axvline(0, color="tab:red", linewidth=0.8)
        ax.set_yticks(range(len(rows)), [f"{r['within']}: {r['A']} less {r['B']}" for _, r in rows.iterrows()], fontsize=8)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.invert_yaxis()
        ax.set_title(perpass.label(figure), fontsize=9)
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
            floor = r["floor"] / 1024 if not math.isnan(r["floor"]) else 0.0
            ax.barh(y, floor, color=colour, alpha=0.35, hatch="//", edgecolor=colour)
            ax.barh(y, total - floor, left=floor, color=colour)
            if not math.isnan(r["per socket low"]):
                ax.errorbar(
                    [total], [y], xerr=[[total - r["per socket low"] / 1024], [r["per socket high"] / 1024 - total]], color="black", capsize=3
                )
            if not math.isnan(r["floor at depth 20"]):
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
        plain_log_axis(ax.xaxis)
        ax.set_title(f"{claim.model}: the seed says {claim.quoted}", fontsize=9)
        ax.grid(alpha=0.3, axis="x")
        if rows.empty:
            ax.text(0.5, 0.5, "not in the floor", transform=ax.transAxes, ha="center")
    axes[-1, 0].set_xlabel("bytes per parked task (log scale); dark: the claim, light: within a quarter of it")
    fig.tight_layout()
    return fig
