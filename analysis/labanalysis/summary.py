"""The table the report opens with: for each headline figure, which server wins, by how much, and how sure we are."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from . import latency, memory, pinning
from .run import Run, ServerRun

MIB = 1 << 20
KIB = 1 << 10


@dataclass(frozen=True)
class Value:
    """One server's figure, with a 95% interval where the figure has one (NaN where it is an exact count)."""

    value: float
    low: float = math.nan
    high: float = math.nan


@dataclass(frozen=True)
class Figure:
    name: str
    lower_is_better: bool
    values: dict[str, Value]  # by server run name


def figures(run: Run) -> list[Figure]:
    """The headline figures for the comparable server runs (JFR streaming, first repeat)."""
    servers = run.comparable
    json_table = latency.endpoint_table(run, "json").set_index("run")
    dashboard_table = latency.endpoint_table(run, "dashboard").set_index("run")
    pins = pinning.summary(run).set_index("run")

    def each(compute) -> dict[str, Value]:
        return {s.name: compute(s) for s in servers}

    def rss_per_socket(s: ServerRun) -> Value:
        fit = memory.per_connection(memory.plateaus(s), "rss_bytes")
        return Value(fit.slope / KIB, fit.slope_low / KIB, fit.slope_high / KIB)

    def live_heap_per_socket(s: ServerRun) -> Value:
        fit = memory.per_connection(memory.live_heap_points(s), "heap_after_gc_bytes")
        return Value(fit.slope / KIB, fit.slope_low / KIB, fit.slope_high / KIB)

    def rss_at_most(s: ServerRun) -> Value:
        return Value(memory.rss_at_most(s) / MIB)

    def tail(endpoint: str, q: float, table: pd.DataFrame, column: str):
        def compute(s: ServerRun) -> Value:
            samples = latency.durations(s, endpoint)
            if len(samples):
                return Value(*latency.percentile_interval(samples, q))
            return Value(table.loc[s.name, column])

        return compute

    return [
        Figure("RSS per idle socket (KiB)", True, each(rss_per_socket)),
        Figure("live heap per idle socket (KiB)", True, each(live_heap_per_socket)),
        Figure("RSS at the most sockets (MiB)", True, each(rss_at_most)),
        Figure("/json p99 (ms)", True, each(tail("json", 99, json_table, "p(99)"))),
        Figure("/json p99.9 (ms)", True, each(tail("json", 99.9, json_table, "p(99.9)"))),
        Figure("/json achieved (req/s)", False, each(lambda s: Value(json_table.loc[s.name, "requests_per_second"]))),
        Figure("/json dropped iterations", True, each(lambda s: Value(json_table.loc[s.name, "dropped_iterations"]))),
        Figure("/dashboard p99 (ms)", True, each(tail("dashboard", 99, dashboard_table, "p(99)"))),
        Figure("peak OS threads", True, each(lambda s: Value(s.outcome.get("peakThreads", math.nan)))),
        Figure("pinned events", True, each(lambda s: Value(pins.loc[s.name, "events"]))),
    ]


def values_table(figs: list[Figure]) -> pd.DataFrame:
    """Figures as rows, server runs as columns: the value, and its interval in brackets where there is one."""
    table = {}
    for fig in figs:
        table[fig.name] = {name: _with_interval(v) for name, v in fig.values.items()}
    return pd.DataFrame(table).T


def winners(figs: list[Figure]) -> pd.DataFrame:
    """For each figure: the best server, the runner-up, by how much, and whether the intervals say it is so."""
    rows = []
    for fig in figs:
        measured = {name: v for name, v in fig.values.items() if v.value == v.value}
        if len(measured) < 2:
            continue
        ranked = sorted(measured.items(), key=lambda item: item[1].value, reverse=not fig.lower_is_better)
        best_value = ranked[0][1].value
        best = [name for name, v in ranked if v.value == best_value]
        rest = [(name, v) for name, v in ranked if v.value != best_value]
        if not rest:
            rows.append(
                {
                    "figure": fig.name,
                    "best": "all equal",
                    "value": _number(best_value),
                    "runner-up": "",
                    "runner-up value": "",
                    "by how much": "tie",
                    "how sure": "equal",
                }
            )
            continue
        second, r = rest[0]
        rows.append(
            {
                "figure": fig.name,
                "best": " = ".join(best),
                "value": _number(best_value),
                "runner-up": second,
                "runner-up value": _number(r.value),
                "by how much": by_how_much(best_value, r.value),
                # With a tie for best, the surest comparison is the weakest of the tied ones.
                "how sure": min((how_sure(measured[name], r, fig.lower_is_better) for name in best), key=SURENESS.index),
            }
        )
    return pd.DataFrame(rows)


def by_how_much(best: float, runner_up: float) -> str:
    """The runner-up's value over the best one's, as a factor; words where a factor means nothing."""
    if best == runner_up:
        return "tie"
    low, high = sorted([abs(best), abs(runner_up)])
    if low == 0:
        return f"{_number(best)} against {_number(runner_up)}"
    return f"{high / low:.2f}x"


SURENESS = ["95% intervals overlap: not resolved", "no interval to compare", "95% intervals apart", "equal"]


def how_sure(best: Value, runner_up: Value, lower_is_better: bool) -> str:
    """Whether the two 95% intervals are apart; for figures without intervals, what kind of figure it is."""
    if best.value == runner_up.value:
        return "equal"
    if best.low != best.low or runner_up.low != runner_up.low:
        return "no interval to compare"
    apart = best.high < runner_up.low if lower_is_better else best.low > runner_up.high
    return "95% intervals apart" if apart else "95% intervals overlap: not resolved"


def _with_interval(v: Value) -> str:
    if v.value != v.value:
        return "not measured"
    if v.low != v.low:
        return _number(v.value)
    return f"{_number(v.value)} [{_number(v.low)}, {_number(v.high)}]"


def _number(x: float) -> str:
    if x != x:
        return ""
    if float(x).is_integer() or abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:,.2f}" if abs(x) >= 1 else f"{x:.3g}"
