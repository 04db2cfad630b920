"""The seed article's claims beside this run's measurements, and whether each held.

The claims are from shared/seeds/ktor-50k-coroutines-vs-vthreads.txt, its "Memory per connection"
table (Ktor 2.3 on JDK 21, a 4 vCPU / 8 GB host, RSS via ps after 10 minutes at 50K idle sockets).
They are claims to check, not targets: the table says what this run found, whichever way it went.
The article's claims are about models (coroutines, virtual threads, platform threads), so each is
checked on every server of that model, as the run's manifest (or servers.json) says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from . import catalogue, memory
from .run import Run, ServerRun

SEED = "shared/seeds/ktor-50k-coroutines-vs-vthreads.txt"
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
    measure: str  # "rss_at_50k", "rss_per_socket" or "live_heap_per_socket"


CLAIMS = [
    Claim("coroutine", "RSS at 50K idle sockets", "~1.2 GB", 1.2 * GB, 1.2 * GB, "rss_at_50k"),
    Claim("virtual", "RSS at 50K idle sockets", "~2.5 GB", 2.5 * GB, 2.5 * GB, "rss_at_50k"),
    Claim("platform", "RSS at 50K idle sockets", "~50 GB (infeasible)", 50 * GB, 50 * GB, "rss_at_50k"),
    Claim("coroutine", "memory per task", "~256 bytes - few KB (heap)", 256, 4096, "rss_per_socket"),
    Claim("virtual", "memory per task", "~1-2 KB (resizable stack)", 1024, 2048, "rss_per_socket"),
    Claim("platform", "memory per task", "~1 MB (fixed stack)", 1 << 20, 1 << 20, "rss_per_socket"),
    # A coroutine's frames and a virtual thread's stack chunks live on the heap: what survives
    # a GC per socket is their part of the per-task memory, without the heap's garbage.
    Claim("coroutine", "memory per task, live heap", "~256 bytes - few KB (heap)", 256, 4096, "live_heap_per_socket"),
    Claim("virtual", "memory per task, live heap", "~1-2 KB (resizable stack)", 1024, 2048, "live_heap_per_socket"),
]


def table(run: Run) -> pd.DataFrame:
    """One row per claim: the claim, this run's value (extrapolated to 50K where the run was smaller), its interval, verdict,
    and the host limit 50K would hit."""
    rows = []
    for claim in CLAIMS:
        of_model = [s for s in run.comparable if catalogue.model_in(run.manifest, s.server) == claim.model]
        rows += [_row(run, claim, server) for server in of_model or [None]]
    return pd.DataFrame(rows)


def _row(run: Run, claim: Claim, server: ServerRun | None) -> dict:
    """One claim against one server's figures; a claim no server of its model measured is `not measured`."""
    live = claim.measure == "live_heap_per_socket"
    points = (memory.live_heap_points(server) if live else memory.plateaus(server)) if server else pd.DataFrame()
    fit = memory.per_connection(points, "heap_after_gc_bytes" if live else "rss_bytes") if not points.empty else None
    measured, low, high, how = math.nan, math.nan, math.nan, "not measured in this run"
    if fit is not None and fit.points >= 2:
        most = int(points["open_sockets"].max())
        if live:
            measured, low, high = fit.slope, fit.slope_low, fit.slope_high
            how = f"slope of the live heap over {fit.points} GCs during the steps, up to {most:,} sockets"
        elif claim.measure == "rss_at_50k":
            measured = fit.at(CLAIM_SOCKETS)
            low, high = fit.interval_at(CLAIM_SOCKETS)
            how = f"line through {fit.points} plateaus up to {most:,} sockets" + (", extrapolated" if most < CLAIM_SOCKETS else "")
        else:
            measured, low, high = fit.slope, fit.slope_low, fit.slope_high
            how = f"slope of RSS over {fit.points} plateaus up to {most:,} sockets"
    if fit is not None and fit.left_out:
        how += f"; left out, not settled: {', '.join(step.split(':')[0] for step in fit.left_out)}"
    return {
        "server": server.server if server else "",
        "model": claim.model,
        "claim": claim.what,
        "seed says": claim.quoted,
        "this run": _bytes(measured),
        "95% interval": f"{_bytes(low)} to {_bytes(high)}" if low == low else "",
        "how": how,
        "held?": verdict(claim, measured, low, high),
        "limit at 50K on this host": limits_at(run, server, CLAIM_SOCKETS) if server else "",
    }


def verdict(claim: Claim, measured: float, low: float = math.nan, high: float = math.nan) -> str:
    """`held` within a quarter of the claim; `not resolved` if not, but the 95% interval reaches the claim; else `no`, with the factor."""
    if measured != measured:
        return "not measured"
    if claim.low * (1 - ABOUT) <= measured <= claim.high * (1 + ABOUT):
        return "held"
    factor = measured / claim.high if measured > claim.high else measured / claim.low
    if low <= claim.high and high >= claim.low:
        return f"not resolved: {factor:.2g}x the claim, but the 95% interval includes it"
    return f"no: {factor:.2g}x the claim"


def limits_at(run: Run, server: ServerRun, sockets: int) -> str:
    """The host limits `sockets` idle sockets would exceed for this server, from its measured per-socket threads, fds and maps.

    Each of threads, open files and memory maps is fitted against open sockets like memory is;
    the line at `sockets` is set against the limit the preflight read from this host. The
    platform-thread server needs a thread (and two maps: stack and guard) per socket.
    """
    limits = run.manifest.get("limits", {})
    points = memory.plateaus(server)
    found = []
    for column, limit_name, what in [
        ("fds", "openFilesHard", "open files (ulimit -n)"),
        ("threads", "pidMax", "kernel.pid_max"),
        ("threads", "threadsMax", "kernel.threads-max"),
        ("maps", "maxMapCount", "vm.max_map_count"),
    ]:
        limit = limits.get(limit_name)
        fit = memory.per_connection(points, column)
        if limit is None or fit.points < 2 or fit.slope != fit.slope:
            continue
        needed = fit.at(sockets)
        if needed > limit:
            found.append(f"{what}: needs ~{needed:,.0f}, limit {limit:,}")
    return "; ".join(found) if found else "none"


def _bytes(value: float) -> str:
    if value != value:
        return ""
    for unit, size in [("GB", GB), ("MB", 1e6), ("KB", 1e3)]:
        if abs(value) >= size:
            return f"{value / size:,.2f} {unit}"
    return f"{value:,.0f} bytes"
