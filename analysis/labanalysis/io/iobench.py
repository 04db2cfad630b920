"""The IO benchmarks (`make io-bench`, a `results/<time>-io/` folder: JMH's jmh.json and the run's io-bench.json).

Each benchmark reads a whole file or writes a whole body to a loopback socket once per
iteration (JMH single-shot), so every raw value is the time of one whole read or write.
The published 2021 figures (shared/seeds/ktor-io-throughput.txt) are in io-bench.json, as the
benchmarks declare them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..bench.claims import ABOUT
from ..folder import provenance

IO_SUFFIX = "-io"
ALLOC = "gc.alloc.rate.norm"

# What each benchmark method moves its bytes through, in the report's words.
PATHS = {
    "FileReadBenchmark.ktorChannel": ("file read", "Ktor ByteReadChannel (File.readChannel)"),
    "FileReadBenchmark.inputStream": ("file read", "InputStream (FileInputStream)"),
    "FileReadBenchmark.fileChannel": ("file read", "NIO FileChannel"),
    "FileReadBenchmark.virtualThread": ("file read", "InputStream on a virtual thread"),
    "SocketWriteBenchmark.ktorSocket": ("socket write", "Ktor raw socket (ktor-network)"),
    "SocketWriteBenchmark.blockingSocketPlatform": ("socket write", "blocking Socket, platform thread"),
    "SocketWriteBenchmark.blockingSocketVirtual": ("socket write", "blocking Socket, virtual thread"),
    "SocketWriteBenchmark.nioSocketChannel": ("socket write", "NIO SocketChannel"),
}


class IoFolderError(Exception):
    """Not a `make io-bench` folder: one line saying what to pass instead."""


@dataclass
class IoRun:
    folder: Path
    manifest: dict
    results: list[dict]
    problems: list[str] = field(default_factory=list)


def load(folder: Path) -> IoRun:
    folder = Path(folder)
    manifest_file = folder / "io-bench.json"
    if not manifest_file.is_file():
        raise IoFolderError(f"{folder} is not a `make io-bench` folder (no io-bench.json); pass results/<time>-io")
    manifest = json.loads(manifest_file.read_text())
    problems = []
    if manifest.get("failedBenchmark"):
        problems.append(f"{manifest['failedBenchmark']} failed; see jmh.log")
    results_file = folder / "jmh.json"
    results = []
    if results_file.is_file():
        try:
            results = json.loads(results_file.read_text())
        except json.JSONDecodeError:
            problems.append("jmh.json is cut short (the run was stopped while JMH wrote it)")
    else:
        problems.append("jmh.json is missing: JMH did not finish")
    ran = {_short(r["benchmark"]) for r in results}
    problems.extend(f"{name} has no result" for name in manifest.get("benchmarks", []) if _short(name) not in ran)
    return IoRun(folder, manifest, results, problems)


def _short(benchmark: str) -> str:
    return ".".join(benchmark.split(".")[-2:])


def scores(io: IoRun) -> pd.DataFrame:
    """One row a benchmark: median, min and max ms of a whole read or write, its MB/s, and bytes allocated per read or write."""
    rows = []
    for r in io.results:
        name = _short(r["benchmark"])
        raw = pd.Series([v for fork in r["primaryMetric"]["rawData"] for v in fork])
        size = int(r["params"]["sizeBytes"])
        group, path = PATHS.get(name, ("other", name))
        alloc = r.get("secondaryMetrics", {}).get(ALLOC, {}).get("score")
        rows.append(
            {
                "benchmark": name,
                "group": group,
                "path": path,
                "size_bytes": size,
                "iterations": len(raw),
                "median_ms": raw.median(),
                "mean_ms": raw.mean(),
                "min_ms": raw.min(),
                "max_ms": raw.max(),
                "mb_per_s": size / 1e6 / (raw.median() / 1000),
                "alloc_bytes_per_op": alloc,
            }
        )
    return pd.DataFrame(rows)


def table(io: IoRun) -> pd.DataFrame:
    s = scores(io)
    if s.empty:
        return pd.DataFrame()
    s = s.sort_values(["group", "median_ms"])
    return pd.DataFrame(
        {
            "what": s["group"],
            "median ms [min-max]": [f"{m:,.1f} [{lo:,.1f}-{hi:,.1f}]" for m, lo, hi in zip(s["median_ms"], s["min_ms"], s["max_ms"], strict=True)],
            "MB/s": s["mb_per_s"].round(0),
            "allocated per whole read or write": [_bytes(a) for a in s["alloc_bytes_per_op"]],
            "iterations": s["iterations"],
        }
    ).set_index(s["path"])


def _bytes(n) -> str:
    if pd.isna(n):
        return ""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,.0f} B"


def claims_table(io: IoRun) -> pd.DataFrame:
    """The article's 2021 means beside today's mean and median; a claim holds within a quarter (the lab's `about`)."""
    published = io.manifest.get("published2021", {})
    by_name = scores(io).set_index("benchmark") if io.results else pd.DataFrame()
    rows = []
    for name, claimed in published.get("meanMsByBenchmark", {}).items():
        row = {"path": PATHS.get(name, ("", name))[1], "2021 (Ktor 1.x), mean ms": claimed}
        if name in by_name.index:
            measured = by_name.loc[name]
            same_size = int(measured["size_bytes"]) == int(published.get("sizeBytes", 0))
            row["today, mean ms"] = round(measured["mean_ms"], 1)
            row["today, median ms"] = round(measured["median_ms"], 1)
            ratio = measured["mean_ms"] / claimed
            row["held?"] = "held" if abs(ratio - 1) <= ABOUT else f"no: {ratio:.2f}x the 2021 time"
            if not same_size:
                row["held?"] = f"not comparable: {int(measured['size_bytes']):,} B, not {int(published['sizeBytes']):,} B"
        else:
            row.update({"today, mean ms": "", "today, median ms": "", "held?": "not measured"})
        rows.append(row)
    # Machines differ by years; how much slower Ktor was than plain JVM IO on the same machine is the claim that travels.
    for ktor, plain, what in (
        ("FileReadBenchmark.ktorChannel", "FileReadBenchmark.inputStream", "Ktor channel read / stream read"),
        ("SocketWriteBenchmark.ktorSocket", "SocketWriteBenchmark.blockingSocketPlatform", "Ktor socket write / JVM socket write"),
    ):
        means = published.get("meanMsByBenchmark", {})
        if ktor not in means or plain not in means:
            continue
        row = {"path": what, "2021 (Ktor 1.x), mean ms": f"{means[ktor] / means[plain]:.1f}x"}
        if ktor in by_name.index and plain in by_name.index:
            today = by_name.loc[ktor, "mean_ms"] / by_name.loc[plain, "mean_ms"]
            row.update(
                {"today, mean ms": f"{today:.1f}x", "today, median ms": f"{by_name.loc[ktor, 'median_ms'] / by_name.loc[plain, 'median_ms']:.1f}x"}
            )
            ratio = today / (means[ktor] / means[plain])
            row["held?"] = "held" if abs(ratio - 1) <= ABOUT else f"no: the gap is {ratio:.2f}x what it was"
        rows.append(row)
    return pd.DataFrame(rows)


def recommendations(io: IoRun) -> list[dict]:
    """The fastest path to read a file and to write to a socket, with the Ktor path's figure beside it."""
    s = scores(io)
    out = []
    for group, need in (("file read", "reading a large file"), ("socket write", "writing a large body to a socket")):
        g = s[s["group"] == group].sort_values("median_ms")
        if g.empty:
            continue
        best = g.iloc[0]
        ktor = g[g["path"].str.startswith("Ktor")]
        ktor_text = f"; Ktor {ktor.iloc[0]['median_ms']:,.0f} ms ({ktor.iloc[0]['median_ms'] / best['median_ms']:.1f}x)" if not ktor.empty else ""
        tied = g[g["median_ms"] <= best["median_ms"] * 1.1]
        out.append(
            {
                "need": f"{need} ({_bytes(best['size_bytes'])})",
                "pick": ", ".join(tied["path"]),
                "because": f"median {best['median_ms']:,.0f} ms, {best['mb_per_s']:,.0f} MB/s (others within 10% listed too){ktor_text}",
            }
        )
    return out


def facts(io: IoRun) -> dict[str, str]:
    m = io.manifest
    header = provenance.recorded(m)
    jdk, host = header["jdk"], header["host"]
    return {
        "started": header["startedAt"] or "",
        "host": f"{host.get('cpus', '?')} CPUs ({host.get('cpuModel', '?')}), kernel {host.get('kernel', '?')}" if host else "not recorded",
        "git commit": provenance.of(m).commit() if header["gitCommit"] else "not recorded",
        "wall time": f"{m.get('wallMs', 0) / 1000:,.0f} s",
        "JDK": f"{jdk.get('version', '?')} {jdk.get('vendor', '')} ({jdk.get('home', '')})",
        "forked JVM flags": " ".join(m.get("forkedJvmFlags", [])),
        "size": _bytes(m.get("sizeBytes")),
        "JMH": (
            f"{m.get('jmhVersion', '?')}: {m.get('warmups')} warm-up and {m.get('iterations')} measured iterations, "
            f"{m.get('forks')} fork(s), single-shot"
        ),
        "Ktor": m.get("ktorVersion", "?"),
    }
