"""The seed article's claims beside this lab's measurements, each against its like, and whether each held.

The claims are from shared/seeds/ktor-50k-coroutines-vs-vthreads.txt, its "Memory per connection"
table (Ktor 2.3 on JDK 21, a 4 vCPU / 8 GB host, RSS via ps after 10 minutes at 50K idle sockets).
They are claims to check, not targets: the tables say what the lab found, whichever way it went.

- "50K idle connections (RSS)" is a server's figure: it is checked on every server of the claim's
  model, each row naming its engine, since the seed's is Ktor on Netty and ours may be another stack.
- "Memory per task" is a model's figure, with no server around the task: it is checked against
  `make floor`'s table (bytes per parked task, per model, depth and JDK), not against a server's
  memory per socket, which also holds the engine's connection and WebSocket session.
- The seed compares the two models inside Ktor. Ktor has no virtual-thread mode, so that
  comparison cannot be made here; a row and KTOR_NOTE say so, and nothing stands in for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .. import stats
from ..folder import catalogue, repeats
from ..folder.run import Run, ServerRun
from . import memory

SEED = "shared/seeds/ktor-50k-coroutines-vs-vthreads.txt"
# The seed's stack: Ktor 2.3, `embeddedServer(Netty, ...)`.
SEED_ENGINE = "ktor-netty"
CLAIM_SOCKETS = 50_000
GB = 1e9  # the article's "GB"; it does not say GiB

# "About" in the article: a claim holds if the measurement is within a quarter of it. A
# generous band, on purpose: the article's host, JDK, Ktor version and client differ from ours,
# so only a difference beyond this is one worth stating.
ABOUT = 0.25


@dataclass(frozen=True)
class Claim:
    model: str  # servers.json's model: coroutine, virtual or platform
    what: str
    quoted: str
    low: float  # bytes; a single value has low == high
    high: float
    measure: str  # "rss_at_50k" (a server's RSS line through its snapshots) or "per_task" (make floor's table)
    # For a per-task claim, the floor's measures it is held to: the one the claim names (heap, stack) and RSS, what the process pays.
    floor_measures: tuple[str, ...] = ()


SOCKET_CLAIMS = [
    Claim("coroutine", "RSS at 50K idle sockets", "~1.2 GB", 1.2 * GB, 1.2 * GB, "rss_at_50k"),
    Claim("virtual", "RSS at 50K idle sockets", "~2.5 GB", 2.5 * GB, 2.5 * GB, "rss_at_50k"),
    Claim("platform", "RSS at 50K idle sockets", "~50 GB (infeasible)", 50 * GB, 50 * GB, "rss_at_50k"),
]
# A coroutine's frames and a parked virtual thread's stack chunks live on the heap, so their claims
# are held to the live heap a parked task keeps (not to a floor JVM's RSS, which is the heap pages
# the warm-up's garbage touched); a platform thread's to its committed stack and its RSS.
TASK_CLAIMS = [
    Claim("coroutine", "memory per task", "~256 bytes - few KB (heap)", 256, 4096, "per_task", ("live heap",)),
    Claim("virtual", "memory per task", "~1-2 KB (resizable stack)", 1024, 2048, "per_task", ("live heap",)),
    Claim("platform", "memory per task", "~1 MB (fixed stack)", 1 << 20, 1 << 20, "per_task", ("NMT stack committed", "RSS")),
]
CLAIMS = SOCKET_CLAIMS + TASK_CLAIMS

IN_KTOR_QUOTE = "Ktor gives you two high-concurrency models: its native coroutine dispatcher and the new virtual thread executor"
KTOR_NOTE = (
    'The seed compares coroutines and virtual threads inside Ktor ("' + IN_KTOR_QUOTE + '"). '
    "Ktor has no virtual-thread mode: it serves every call as a coroutine, and running those coroutines on a "
    "dispatcher backed by virtual threads changes which threads resume them, not how a waiting call waits (it "
    "suspends as a coroutine; no virtual thread parks). So the seed's in-Ktor comparison cannot be reproduced "
    "here, and nothing stands in for it. The seed's virtual-thread figures are checked against this lab's "
    "virtual-thread server on another engine, which each row names; the model effect is read along one engine "
    "(the grid above), and the engine effect down one model."
)


def table(run: Run) -> pd.DataFrame:
    """One row per 50K claim and server of its model: its engine, this run's RSS at 50K (extrapolated where the run held fewer; the
    median across its passes, with their range), verdict, and the host limit 50K would hit; then a row saying the seed's in-Ktor
    comparison cannot be checked."""
    rows = []
    # A claim is about a model as servers run it: an arm (a server without some of the lab's changes) is not checked against it.
    names = [n for n in dict.fromkeys(s.server for s in repeats.compared(run)) if catalogue.arm_of(n) is None]
    for claim in SOCKET_CLAIMS:
        of_model = [name for name in names if catalogue.model_in(run.catalogue, name) == claim.model]
        rows += [_row(run, claim, [s for s in repeats.compared(run) if s.server == name]) for name in of_model or [None]]
    return pd.DataFrame([*rows, in_ktor_row(run)])


def _row(run: Run, claim: Claim, passes: list[ServerRun] | None) -> dict:
    """One claim against one server's passes: each pass's RSS line (memory.per_socket_fit) at 50K, across them; a claim no server of
    its model measured is `not measured`."""
    fits = [memory.per_socket_fit(s, "RSS") for s in passes or []]
    at = stats.across([f.at(CLAIM_SOCKETS) for f in fits if f.points >= 2])
    how = "not measured in this run"
    if at.passes:
        most = max(_most_sockets(s) for s in passes)
        how = f"line through each pass's snapshots up to {most:,} sockets" + (", extrapolated" if most < CLAIM_SOCKETS else "")
        how += f"; median of {at.passes} passes" if at.has_interval else "; one pass"
    left = sorted({step.split(":")[0] for f in fits for step in f.left_out})
    if left:
        how += f"; left out, not settled: {', '.join(left)}"
    server = passes[0] if passes else None
    engine = catalogue.engine_in(run.catalogue, server.server) if server else None
    return {
        "server": server.server if server else "",
        "engine": engine or "",
        "model": claim.model,
        "claim": claim.what,
        "seed says": claim.quoted,
        "this run": _bytes(at.median),
        "range across passes": f"{_bytes(at.low)} to {_bytes(at.high)}" if at.has_interval else "",
        "how": how,
        "held?": verdict(claim, at.median, at.low, at.high, interval="range across passes"),
        "like the seed's?": like_the_seeds(engine) if server else "",
        "limit at 50K on this host": limits_at(run, server, CLAIM_SOCKETS) if server else "",
    }


def _most_sockets(server: ServerRun) -> int:
    """The most sockets a pass's memory line was fitted up to: its last snapshot's."""
    points = memory.snapshots(server)
    return int(points["open_sockets"].max()) if not points.empty else 0


def like_the_seeds(engine: str | None) -> str:
    """Whether a row's server runs the seed's engine: a claim measured on another stack checks the model, not the seed's server."""
    if engine == SEED_ENGINE:
        return f"yes: the seed's engine ({SEED_ENGINE})"
    return f"no: the seed ran {SEED_ENGINE}, this row is {engine or 'an unknown engine'}"


def in_ktor_row(run: Run) -> dict:
    """The seed's comparison of the two models inside Ktor, as a row: it cannot be checked, since Ktor has no virtual-thread mode."""
    engines = sorted(
        {
            catalogue.engine_in(run.catalogue, s.server) or "?"
            for s in repeats.compared(run)
            if catalogue.model_in(run.catalogue, s.server) == "virtual"
        }
    )
    here = f"this run's virtual threads run on {', '.join(engines)}" if engines else "this run has no virtual-thread server"
    return {
        "server": "",
        "engine": SEED_ENGINE,
        "model": "coroutine and virtual",
        "claim": "coroutines against virtual threads, both inside Ktor",
        "seed says": IN_KTOR_QUOTE,
        "this run": "",
        "range across passes": "",
        "how": "",
        "held?": f"cannot be checked: {catalogue.NO_SUCH_MODE[(SEED_ENGINE, 'virtual')]}",
        "like the seed's?": f"no: {here}",
        "limit at 50K on this host": "",
    }


def per_task_table(floor: pd.DataFrame | None) -> pd.DataFrame:
    """One row per memory-per-task claim, floor measure, JDK and depth: make floor's bytes per parked task (median of its repeats,
    with their range) and the verdict; one row per claim saying what is missing when there is no floor, or no figure for it."""
    rows = []
    for claim in TASK_CLAIMS:
        for measure in claim.floor_measures:
            here = pd.DataFrame() if floor is None else floor[(floor["model"] == claim.model) & (floor["measure"] == measure)]
            if here.empty:
                missing = "not measured: run make floor" if floor is None else f"not measured: the floor has no {claim.model} {measure}"
                rows.append(_task_row(claim, measure, None, missing))
                continue
            for _, f in here.sort_values(["jdk", "depth"]).iterrows():
                rows.append(_task_row(claim, measure, f, verdict(claim, f["median"], f["low"], f["high"], interval="range over repeats")))
    return pd.DataFrame(rows)


def _task_row(claim: Claim, measure: str, floor: pd.Series | None, held: str) -> dict:
    depth = "" if floor is None else "parked directly" if floor["depth"] == 0 else f"parked {floor['depth']} frames deep"
    return {
        "model": claim.model,
        "claim": claim.what,
        "seed says": claim.quoted,
        "floor measure": measure,
        "JDK": "" if floor is None else floor["jdk"],
        "task": depth,
        "floor (per task)": "" if floor is None else _bytes(floor["median"]),
        "range over repeats": "" if floor is None else f"{_bytes(floor['low'])} to {_bytes(floor['high'])}",
        "repeats": "" if floor is None else floor["repeats"],
        "held?": held,
    }


def verdict(claim: Claim, measured: float, low: float = math.nan, high: float = math.nan, interval: str = "95% interval") -> str:
    """`held` within a quarter of the claim; `not resolved` if not, but the interval reaches the claim; else `no`, with the factor."""
    if math.isnan(measured):
        return "not measured"
    if claim.low * (1 - ABOUT) <= measured <= claim.high * (1 + ABOUT):
        return "held"
    factor = measured / claim.high if measured > claim.high else measured / claim.low
    if low <= claim.high and high >= claim.low:
        return f"not resolved: {factor:.2g}x the claim, but the {interval} includes it"
    return f"no: {factor:.2g}x the claim"


def limits_at(run: Run, server: ServerRun, sockets: int) -> str:
    """The limits `sockets` idle sockets would exceed for this server, from its measured per-socket threads, fds and maps.

    Each of threads, open files and memory maps is fitted against open sockets like memory is;
    the line at `sockets` is set against the limit the preflight read from this host (a bounded
    pool's bound is not one: the harness sizes it to each run, Preflight.poolThreads). The
    platform-thread server needs a thread (and two maps: stack and guard) per socket.
    """
    limits = run.limits
    points = memory.plateaus(server)
    found = []
    for column, limit, what in [
        ("fds", limits.open_files_hard, "open files (ulimit -n)"),
        ("threads", limits.pid_max, "kernel.pid_max"),
        ("threads", limits.threads_max, "kernel.threads-max"),
        ("maps", limits.max_map_count, "vm.max_map_count"),
    ]:
        fit = memory.per_connection(points, column)
        if fit.points < 2 or math.isnan(fit.slope):
            continue
        needed = fit.at(sockets)
        if needed > limit:
            found.append(f"{what}: needs ~{needed:,.0f}, limit {limit:,}")
    return "; ".join(found) if found else "none"


def _bytes(value: float) -> str:
    if math.isnan(value):
        return ""
    for unit, size in [("GB", GB), ("MB", 1e6), ("KB", 1e3)]:
        if abs(value) >= size:
            return f"{value / size:,.2f} {unit}"
    return f"{value:,.0f} bytes"
