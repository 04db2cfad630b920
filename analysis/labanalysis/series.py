"""The files of a pass's folder the analysis reads as tables: each CSV series' columns (SERIES; the harness's ServerRun writes
them), k6's raw samples, and how a file cut off mid-write is read: its whole rows, and how many were not."""

from __future__ import annotations

import csv
import io
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class Series:
    """A CSV the harness writes into a pass's folder, as the analysis reads it.

    `required` columns must all be there, with a value in every row: a row without one was cut off
    mid-write and is left out. `optional` columns may be empty in a row (cpu.csv's k6 on a remote load
    generator) or absent from the file (a harness that does not write one yet): the analysis uses the
    spec's names only, never a guess at another, and says which it did not find. `text` columns are
    read as text, every other as a number.
    """

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    text: tuple[str, ...] = ("phase",)

    @property
    def columns(self) -> list[str]:
        return [*self.required, *self.optional]


# Every series of a pass (the harness's ServerRun writes them; /tmp's issue-16 spec has cpu, memory and histogram).
SERIES = {
    "proc.csv": Series(("time_s", "phase", "rss_bytes", "pss_bytes", "threads", "fds", "maps")),
    "jfr-series.csv": Series(("time_s", "phase", "metric", "value"), text=("phase", "metric")),
    "load.csv": Series(("time_s", "phase", "sockets_opened_total", "requests_total")),
    "pinned.csv": Series(("time_s", "phase", "duration_ms", "top_frames"), text=("phase", "top_frames")),
    # One row a second: the cores each process used, the host's steal (0..1), and how busy the server's and the load's CPU sets were.
    "cpu.csv": Series(("time_s", "phase"), optional=("server", "k6", "stub", "harness", "steal", "server_cpus_busy", "load_cpus_busy")),
    # One row per snapshot (each socket step's end, and one before the first socket) and memory component, long format.
    "memory.csv": Series(("time_s", "phase", "sockets_open", "component", "bytes"), text=("phase", "component")),
    # The 25 largest classes by bytes at each snapshot, from the class histogram the live heap is the total of.
    "histogram.csv": Series(("time_s", "sockets_open", "rank", "class", "instances", "bytes"), text=("class",)),
    # One row per HTTP request the server answered: its arrival (time_s), phase, endpoint, and the wire's response time (ms).
    "wire.csv": Series(("time_s", "phase", "endpoint", "ms"), text=("phase", "endpoint")),
    # One row per request vegeta sent, where the profile gave it the curve (the harness's VegetaCurve): when it was sent and the
    # phase then, the step it was sent for and its place in that step's attack, the status, vegeta's timing, and the checks.
    "vegeta.csv.gz": Series(
        ("time_s", "phase", "attack", "seq", "endpoint", "status", "ms", "checks_passed"),
        optional=("error",),
        text=("phase", "attack", "endpoint", "error"),
    ),
}
# The series a run from before issue 16 does not have: missing, its report says the figure is not in that run. Within a run that has
# them, a pass without one is a problem like any other missing file.
NEWER_SERIES = ("cpu.csv", "memory.csv", "histogram.csv", "wire.csv")


def whole_rows(text: str, spec: Series) -> tuple[pd.DataFrame | None, int, list[str]]:
    """The rows of a CSV that have every field of its header and a value in each required column, how many did not (a line cut off
    mid-write), and the spec's columns the header lacks.

    The frame is None if a required column is missing; an optional one missing is added, empty. pandas would
    pad a short last line with NaN, which a mean or a count would then take as data, so short rows are
    dropped here and counted. An empty optional cell is NaN: the harness writes one where it has no value.
    """
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None) or []
    absent = [c for c in spec.columns if c not in header]
    if any(c in spec.required for c in absent):
        return None, 0, [c for c in absent if c in spec.required]
    whole, dropped = [], 0
    for row in rows:
        if len(row) == len(header):
            whole.append(row)
        elif row:
            dropped += 1
    frame = pd.DataFrame(whole, columns=header, dtype=str) if whole else pd.DataFrame(columns=header, dtype=str)
    frame = frame.reindex(columns=[*header, *absent])
    numeric = [c for c in spec.columns if c not in spec.text]
    for column in numeric:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    for column in [c for c in header if c not in spec.columns]:
        # A column beyond the spec's is kept, as numbers where every value it has is one.
        converted = pd.to_numeric(frame[column], errors="coerce")
        if converted.notna().sum() == (frame[column] != "").sum():
            frame[column] = converted
    required_numbers = [c for c in spec.required if c not in spec.text]
    bad = frame[required_numbers].isna().any(axis=1) if required_numbers else pd.Series(False, index=frame.index)
    return frame[~bad].reset_index(drop=True), dropped + int(bad.sum()), absent


def gunzip_what_is_there(path: Path) -> tuple[str, bool]:
    """The text of a gzip file, as much as can be read, and whether it was cut short (k6 killed mid-write)."""
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    data = path.read_bytes()
    try:
        text = decompressor.decompress(data)
    except zlib.error:
        return "", True
    if decompressor.eof:
        return text.decode(errors="replace"), False
    # Keep the lines before the cut; the last one is likely half written.
    return text.decode(errors="replace").rsplit("\n", 1)[0], True


K6_SAMPLE_COLUMNS = ["metric_name", "timestamp", "metric_value", "scenario", "extra_tags"]
K6_SAMPLE_METRICS = ["http_req_duration", "http_req_failed", "dropped_iterations", "lab_sockets_opened"]


def read_k6_samples(path: Path) -> tuple[pd.DataFrame, str]:
    """k6's raw samples (k6-metrics.csv.gz) of the metrics the analysis uses, the rows before any cut, and what is wrong with the
    file in a sentence ("" if nothing).

    Columns: metric_name, timestamp (whole epoch seconds), metric_value, scenario, extra_tags
    (`endpoint=json`, ...). Only K6_SAMPLE_METRICS are kept: a local run writes millions of rows.
    """
    if not path.is_file():
        return pd.DataFrame(columns=K6_SAMPLE_COLUMNS), f"{path.name} is missing: latency over time is left out"
    text, cut = gunzip_what_is_there(path)
    try:
        # In chunks, keeping only the metrics used: a local run has millions of samples, most of them other metrics.
        chunks = pd.read_csv(io.StringIO(text), usecols=K6_SAMPLE_COLUMNS, dtype=str, chunksize=500_000)
        frame = pd.concat([chunk[chunk["metric_name"].isin(K6_SAMPLE_METRICS)] for chunk in chunks], ignore_index=True)
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return pd.DataFrame(columns=K6_SAMPLE_COLUMNS), f"{path.name} is not a k6 CSV output: latency over time is left out"
    del text
    for column in ["timestamp", "metric_value"]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame = frame.dropna(subset=["timestamp", "metric_value"]).reset_index(drop=True)
    return frame, f"{path.name} is cut short: {len(frame):,} whole samples read, the rest left out" if cut else ""
