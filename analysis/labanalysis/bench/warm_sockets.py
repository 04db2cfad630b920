"""Cold and warm sockets: what an idle socket holds when its server took it before any load, with nothing compiled (cold), and
when it took it after the load had compiled the request and echo paths (warm: the profile's warmSockets, the harness's
LoadTimeline). A parked virtual thread's saved stack is smaller where its frames were compiled, so a server may hold less for a
socket it took warm; a coroutine's state is a heap object either way.

Each set's figure per socket is memory.per_socket_fit's slope through that set's own snapshots. Warm over cold is taken pass by pass
(both sets are one JVM's, minutes apart), then across passes (stats.across); whether the two order the servers alike is judged
by the verdict's rule, round by round (stats.rounds).
"""

from __future__ import annotations

import itertools

import pandas as pd

from ..folder import repeats
from ..folder.run import Run
from ..stats.across import across
from ..stats.numbers import number, shown
from ..stats.rounds import clear_lead, in_rounds
from . import memory

# What a socket holds in all first, then its parts, and PSS, the figure a reader of `ps` knows.
MEASURES = (memory.HELD, *memory.HELD_PARTS, "PSS")
KIB = 1024
COLUMNS = [*repeats.PASS_COLUMNS, "round", "measure", "cold", "warm", "warm over cold", "cold rest threads", "warm rest threads", "sockets"]
# A pool that kept at least this share of a pass's sockets in threads at the warm rest (more than at the cold rest) made its warm
# sockets' threads before they opened: its warm slope leaves a socket's thread out, and the rest holds it (threads_at_rest).
KEPT_SHARE = 0.1


def measured(runs: list[Run]) -> bool:
    """Whether any of the runs opened its sockets warm too."""
    return any(run.warm_sockets for run in runs)


def per_pass(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass and measure (MEASURES): its round (run folder and repeat), bytes per socket cold and warm, warm
    over cold (NaN where either is missing or not above 0: a ratio compares amounts), the threads at each rest (threads_at_rest),
    and the sockets its last warm step held."""
    rows = []
    for _, server, base in repeats.each_pass(runs):
        threads = {sockets: threads_at_rest(server, sockets) for sockets in (memory.COLD, memory.WARM)}
        warm_points = memory.snapshots(server, memory.WARM)
        sockets = float(warm_points["open_sockets"].max()) if not warm_points.empty else float("nan")
        for measure in MEASURES:
            cold = memory.per_socket_fit(server, measure, memory.COLD).slope
            warm = memory.per_socket_fit(server, measure, memory.WARM).slope
            rows.append(
                {
                    **base,
                    "round": (base["run folder"], server.repeat),
                    "measure": measure,
                    "cold": cold,
                    "warm": warm,
                    "warm over cold": warm / cold if cold > 0 and warm > 0 else float("nan"),
                    "cold rest threads": threads[memory.COLD],
                    "warm rest threads": threads[memory.WARM],
                    "sockets": sockets,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def threads_at_rest(server, sockets: str) -> float:
    """The server's threads (proc.csv) at the rest snapshot of `sockets`, the sample nearest it; NaN without either.

    A pool that keeps the threads its cold sockets made holds them at the warm rest already (Jetty's keeps an idle thread 60 s,
    and lets go of few at a time), so a warm socket takes a thread that exists: its warm slope leaves the thread out, and the rest
    holds it."""
    points, proc = memory.snapshots(server, sockets), server.proc
    if points.empty or proc.empty:
        return float("nan")
    at = points.loc[points["open_sockets"].idxmin(), "time_s"]
    return float(proc.loc[(proc["time_s"] - at).abs().idxmin(), "threads"])


def pools_kept(passes: pd.DataFrame) -> dict[str, float]:
    """The servers whose pool kept their cold sockets' threads to the warm rest (KEPT_SHARE), by label: the threads kept, the median
    over their passes of the warm rest's threads less the cold rest's."""
    kept = {}
    for label, group in passes.drop_duplicates(["pass"]).groupby("label", sort=False):
        more = across(group["warm rest threads"] - group["cold rest threads"]).median
        if more >= KEPT_SHARE * across(group["sockets"]).median:
            kept[label] = more
    return kept


def table(passes: pd.DataFrame) -> pd.DataFrame:
    """Per server and measure of `passes` (per_pass): KiB a socket cold and warm, and warm over cold, each its median over the
    passes with their range; and the threads the server held at each rest (threads_at_rest), which say where a pool kept what its
    cold sockets made."""
    rows = []
    for (label, measure), group in passes.groupby(["label", "measure"], sort=False):
        cold, warm, ratio = (across(group[c]) for c in ("cold", "warm", "warm over cold"))
        rest = (across(group[f"{sockets} rest threads"]).median for sockets in (memory.COLD, memory.WARM))
        rows.append(
            {
                "server": label,
                "measure": measure,
                "cold (KiB a socket)": shown(across(group["cold"] / KIB), passes=False),
                "warm (KiB a socket)": shown(across(group["warm"] / KIB), passes=False),
                "warm over cold": shown(ratio, passes=False),
                "threads at rest, cold / warm": " / ".join(number(t) for t in rest),
                "passes": min(cold.passes, warm.passes),
            }
        )
    return pd.DataFrame(rows)


def order_changes(passes: pd.DataFrame, measure: str = memory.HELD) -> list[str]:
    """Each pair of servers that one set orders clearly (stats.rounds.clear_lead: less held in every round, by 15% or more) and the
    other does not order the same way, in a sentence: empty where cold and warm sockets order the servers alike. A server whose pool
    kept its cold sockets' threads (pools_kept) is in no pair: its warm slope is not a socket's whole cost. `passes` is per_pass's."""
    kept = pools_kept(passes)
    passes = passes[(passes["measure"] == measure) & ~passes["label"].isin(kept)]
    by_set = {
        sockets: {label: dict(zip(group["round"], group[sockets], strict=True)) for label, group in passes.groupby("label", sort=False)}
        for sockets in (memory.COLD, memory.WARM)
    }
    changes = []
    for a, b in itertools.permutations(by_set[memory.COLD], 2):
        # b over a: above 1 where a holds less for a socket.
        lead = {sockets: in_rounds(by_set[sockets][b], by_set[sockets][a]) for sockets in by_set}
        for led, other in ((memory.COLD, memory.WARM), (memory.WARM, memory.COLD)):
            if clear_lead(lead[led]) and not clear_lead(lead[other]):
                changes.append(
                    f"{b} held {shown(lead[led], passes=False)} times what {a} held for a {led} socket, "
                    f"and {shown(lead[other], passes=False)} times for a {other} one"
                )
    return changes


def order_sentence(passes: pd.DataFrame, measure: str = memory.HELD) -> str:
    """Whether warm sockets change the servers' order by `measure`, in words, with the servers left out and why: the closing line of
    the report's section. `passes` is per_pass's."""
    changes = order_changes(passes, measure)
    kept = pools_kept(passes)
    left_out = (
        " Left out: "
        + "; ".join(f"{label}, whose pool kept {number(more)} threads of its cold sockets to the warm rest" for label, more in kept.items())
        + ", so that a warm socket took a thread that existed and its slope leaves the thread out."
        if kept
        else ""
    )
    if not changes:
        return (
            f"Cold and warm sockets order the servers alike by {measure}: every pair that one set puts clearly apart "
            f"(15% or more in every round), the other puts apart the same way.{left_out}"
        )
    return f"Warm sockets change the servers' order by {measure}: " + "; ".join(changes) + "." + left_out
