"""The client experiments (`make clients`, a `results/<time>-clients/` folder) as tables.

The thread census follows shared/seeds/network-client-threads.txt: N calls that the stub answers
after a delay, and one second in, the threads that are new, alive and not parked. The downloads
follow shared/seeds/http-client-large-downloads.txt: one body at a time, MB/s and allocation,
with curl as the native baseline. Every figure is a median over the repeats, with its range.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..folder import provenance
from ..folder.declared import DeclaredError
from ..folder.experiment_manifests import ClientsManifest, clients_manifest

CLIENTS_SUFFIX = "-clients"
CURL = "curl"
THREADS_SEED = "shared/seeds/network-client-threads.txt"


class ClientsFolderError(Exception):
    """Not a `make clients` folder: one line saying what to pass instead."""


@dataclass
class ClientsRun:
    folder: Path
    manifest: ClientsManifest
    threads: pd.DataFrame
    downloads: pd.DataFrame
    concurrent: pd.DataFrame
    problems: list[str] = field(default_factory=list)

    @property
    def delay_ms(self) -> int:
        return self.manifest.settings.delay_ms


def load(folder: Path) -> ClientsRun:
    folder = Path(folder)
    manifest_file = folder / "manifest.json"
    if not manifest_file.is_file():
        raise ClientsFolderError(f"{folder} is not a `make clients` folder (no manifest.json); pass results/<time>-clients")
    try:
        manifest = clients_manifest(json.loads(manifest_file.read_text()))
    except DeclaredError as e:
        raise ClientsFolderError(f"{manifest_file}: {e}") from e
    problems = provenance.problems_of(manifest.provenance, manifest.problems)
    threads = _lines(folder / "threads.jsonl", problems)
    downloads = _lines(folder / "downloads.jsonl", problems)
    concurrent = _lines(folder / "concurrent.jsonl", problems)
    run = ClientsRun(folder, manifest, threads, downloads, concurrent, problems)
    problems.extend(_census_problems(run))
    problems.extend(_download_problems(run))
    return run


def _lines(path: Path, problems: list[str]) -> pd.DataFrame:
    """One row a JSON line; a line cut mid-write (a run stopped while writing) is dropped and said."""
    if not path.is_file():
        problems.append(f"{path.name} is missing")
        return pd.DataFrame()
    rows, cut = [], 0
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            cut += 1
    if cut:
        problems.append(f"{path.name}: {cut} line(s) cut mid-write, dropped")
    return pd.DataFrame(rows)


def _census_problems(run: ClientsRun) -> list[str]:
    t = run.threads
    if t.empty:
        return []
    out = []
    for row in t.itertuples():
        if row.inFlightAtCensus != row.requests:
            out.append(
                f"{row.client} x{row.requests} (repeat {row.repeat}): {row.inFlightAtCensus} calls in flight at the census, not {row.requests}"
            )
        if row.failedRequests:
            out.append(f"{row.client} x{row.requests} (repeat {row.repeat}): {row.failedRequests} calls failed: {row.firstError}")
    return out


def _download_problems(run: ClientsRun) -> list[str]:
    d = run.downloads
    if d.empty:
        return []
    return [f"{r.client} <- {r.server} {r.sizeBytes:,} B (repeat {r.repeat}): {r.error}" for r in d.itertuples() if isinstance(r.error, str)]


def _median_range(values: pd.Series, fmt: str = "{:,.0f}") -> str:
    values = values.dropna()
    if values.empty:
        return ""
    low, mid, high = values.min(), values.median(), values.max()
    return fmt.format(mid) if low == high else f"{fmt.format(mid)} [{fmt.format(low)}-{fmt.format(high)}]"


def thread_table(run: ClientsRun) -> pd.DataFrame:
    """Client x calls in flight: new unparked threads and wall time, median [range] over the repeats, and what the call waits on."""
    t = run.threads
    if t.empty:
        return pd.DataFrame()
    waits = run.manifest.client_waits
    rows = []
    for client, by_client in t.groupby("client", sort=False):
        row = {"client": client}
        for n, g in by_client.groupby("requests"):
            row[f"threads, {n} calls"] = _median_range(g["activeUnparkedNew"])
            row[f"time (s), {n} calls"] = _median_range(g["wallMs"] / 1000, "{:.2f}")
        # A thread a measurement, so the same name with another number: counted by name with the digits as #.
        left = pd.Series([_name_group(name) for names in by_client["leftBehind"] for name in names]).value_counts()
        row["left behind after close"] = ", ".join(f"{name} (after {count} of {len(by_client)} runs)" for name, count in left.items()) or "none"
        row["a waiting call holds"] = waits.get(client, "")
        rows.append(row)
    table = pd.DataFrame(rows).set_index("client")
    most = t["requests"].max()
    order = t[t["requests"] == most].groupby("client")["activeUnparkedNew"].median().sort_values(kind="stable")
    return table.loc[order.index]


def _name_group(name: str) -> str:
    return re.sub(r"[0-9]+", "#", name)


def thread_medians(run: ClientsRun) -> pd.DataFrame:
    """Median, min and max of the new unparked threads and of the wall time, by client and calls."""
    if run.threads.empty:
        return pd.DataFrame(columns=["client", "requests", "threads", "threads_min", "threads_max", "wall_ms", "wall_ms_min", "wall_ms_max"])
    g = run.threads.groupby(["client", "requests"])
    return pd.DataFrame(
        {
            "threads": g["activeUnparkedNew"].median(),
            "threads_min": g["activeUnparkedNew"].min(),
            "threads_max": g["activeUnparkedNew"].max(),
            "wall_ms": g["wallMs"].median(),
            "wall_ms_min": g["wallMs"].min(),
            "wall_ms_max": g["wallMs"].max(),
            "repeats": g.size(),
        }
    ).reset_index()


def download_table(run: ClientsRun, size: int) -> pd.DataFrame:
    """Client x server for one body size: MB/s, median [range] over the timed repeats (the checked warm-up excluded)."""
    d = run.downloads
    if d.empty:
        return pd.DataFrame()
    timed = d[(d["repeat"] > 0) & (d["sizeBytes"] == size) & d["error"].isna()]
    table = timed.pivot_table(index="client", columns="server", values="mbPerSecond", aggfunc=lambda v: _median_range(v, "{:,.1f}"))
    order = timed.groupby("client")["mbPerSecond"].median().sort_values(ascending=False).index
    table = table.loc[order]
    table.columns = [f"{c} (MB/s)" for c in table.columns]
    return table


def allocation_table(run: ClientsRun) -> pd.DataFrame:
    """Client x size: heap allocated per byte downloaded (median over servers and repeats). 1.0 means one copy of the body."""
    d = run.downloads
    if d.empty:
        return pd.DataFrame()
    timed = d[(d["repeat"] > 0) & d["allocatedBytes"].notna() & d["error"].isna()].copy()
    timed["per_byte"] = timed["allocatedBytes"] / timed["sizeBytes"]
    table = timed.pivot_table(index="client", columns="sizeBytes", values="per_byte", aggfunc="median")
    table.columns = [f"{size_label(c)}: bytes allocated per byte" for c in table.columns]
    return table.sort_values(table.columns[-1])


def concurrent_table(run: ClientsRun) -> pd.DataFrame:
    """Server: several large downloads at once, aggregate MB/s, the server's CPU per GB moved, and its OS threads."""
    c = run.concurrent
    if c.empty:
        return pd.DataFrame()
    ok = c[c["error"].isna()].copy()
    ok["cpu_ms_per_gb"] = ok["serverCpuMs"] / (ok["streams"] * ok["sizeBytes"] / 1e9)
    rows = []
    for server, g in ok.groupby("server"):
        rows.append(
            {
                "server": server,
                "downloads at once": f"{g['streams'].iloc[0]} x {size_label(g['sizeBytes'].iloc[0])}",
                "MB/s, all together": _median_range(g["mbPerSecond"], "{:,.0f}"),
                "server CPU (ms per GB)": _median_range(g["cpu_ms_per_gb"], "{:,.0f}"),
                "server threads before": _median_range(g["serverThreadsBefore"]),
                "server threads, peak": _median_range(g["serverThreadsPeak"]),
            }
        )
    return pd.DataFrame(rows).set_index("server")


def sizes(run: ClientsRun) -> list[int]:
    return sorted(run.downloads["sizeBytes"].unique().tolist()) if not run.downloads.empty else []


def size_label(n: float) -> str:
    """80 KB, 7 MB, 128 MiB: a body size as the articles write it."""
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1_000_000:
        return f"{n / 1e6:g} MB"
    return f"{n / 1e3:g} KB"


def facts(run: ClientsRun) -> dict[str, str]:
    m = run.manifest
    s = m.settings
    header = m.provenance
    return {
        **header.run_facts(),
        "JDK": f"{header.jdk.version} ({header.jdk.home})",
        "JVM flags (servers and clients)": " ".join(m.jvm_flags),
        "git commit": header.commit(),
        "curl": m.curl_version,
        "thread census": (
            f"{', '.join(map(str, s.requests))} calls answered after {s.delay_ms} ms; {s.repeats} repeats in random order (seed {s.seed})"
        ),
        "downloads": (
            f"{', '.join(size_label(x) for x in s.sizes_bytes)} from {', '.join(s.servers)}; "
            f"{s.download_repeats} repeats after a byte-checked warm-up"
        ),
        "concurrent downloads": f"{s.streams} x {size_label(s.stream_bytes)} from each server" if s.streams else "none",
    }
