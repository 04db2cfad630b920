"""The files of a pass's folder the analysis reads as tables: each CSV series' columns as run-folder.json at the repository root
declares them (the harness writes through the same declaration), k6's raw samples, and how a file cut off mid-write is read: its
whole rows, and how many were not."""

from __future__ import annotations

import csv
import io
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

DECLARATION = Path(__file__).resolve().parents[3] / "run-folder.json"


@dataclass(frozen=True)
class Series:
    """A CSV the harness writes into a pass's folder, as the analysis reads it.

    `columns` in the declared order. A column not `optional` must be there, with a value in every row: a row without one was
    cut off mid-write and is left out. An `optional` column may be empty in a row (cpu.csv's k6 on a remote load generator).
    `text` columns are read as text, every other as a number.
    """

    columns: tuple[str, ...]
    optional: tuple[str, ...] = ()
    text: tuple[str, ...] = ("phase",)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if c not in self.optional)


def _series(spec: dict) -> Series:
    """One CSV's declaration (its columns with their types, and those it may leave empty) as the analysis reads it."""
    columns = spec["columns"]
    return Series(tuple(columns), tuple(spec["optional"]), tuple(c for c, kind in columns.items() if kind == "text"))


def declared(text: str) -> tuple[int, dict[str, Series]]:
    """The format's version and its series, from run-folder.json's text."""
    declaration = json.loads(text)
    return declaration["version"], {name: _series(spec) for name, spec in declaration["series"].items()}


def experiments(text: str) -> dict[str, dict[str, Series]]:
    """The CSVs of an experiment's folder (`sweep`, `floor`), by kind and file, from run-folder.json's text."""
    declared_experiments = json.loads(text).get("experiments", {})
    return {kind: {name: _series(spec) for name, spec in files.items()} for kind, files in declared_experiments.items()}


# The run-folder format this analysis reads, every series of a pass in it, and the CSVs of the sweep's and the floor's folders.
FORMAT_VERSION, SERIES = declared(DECLARATION.read_text())
EXPERIMENTS = experiments(DECLARATION.read_text())


def refused_version(folder: Path, manifest: dict) -> str | None:
    """Why the analysis cannot read `folder` (its manifest says another format than this analysis reads, or none: a folder from
    before run-folder.json), or None if it can."""
    version = manifest.get("runFolderFormat")
    if version == FORMAT_VERSION:
        return None
    # A folder of another format is not read into this analysis's types: only the commit that can render it is looked up.
    commit = (manifest.get("provenance") or manifest).get("gitCommit") or "the commit that made it"
    written = f"is in run-folder format {version}" if version is not None else "records no run-folder format (it predates run-folder.json)"
    return f"{folder} {written}, and this analysis reads format {FORMAT_VERSION} (run-folder.json): render it from a checkout of {commit}"


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
    numeric = [c for c in spec.columns if c not in spec.text]
    if header and _every_row_whole(text, len(header)):
        frame, dropped = _read_whole(text, header, [c for c in numeric if c in header]), 0
    else:
        whole, dropped = [], 0
        for row in rows:
            if len(row) == len(header):
                whole.append(row)
            elif row:
                dropped += 1
        frame = pd.DataFrame(whole, columns=header, dtype=str) if whole else pd.DataFrame(columns=header, dtype=str)
    frame = frame.reindex(columns=[*header, *absent])
    for column in numeric:
        if frame[column].dtype.kind not in "iuf":
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    for column in [c for c in header if c not in spec.columns]:
        # A column beyond the spec's is kept, as numbers where every value it has is one.
        converted = pd.to_numeric(frame[column], errors="coerce")
        if converted.notna().sum() == (frame[column] != "").sum():
            frame[column] = converted
    required_numbers = [c for c in spec.required if c not in spec.text]
    bad = frame[required_numbers].isna().any(axis=1) if required_numbers else pd.Series(False, index=frame.index)
    return frame[~bad].reset_index(drop=True), dropped + int(bad.sum()), absent


def _every_row_whole(text: str, fields: int) -> bool:
    """Whether every line of `text` but blank ones has `fields` fields, none quoted and none across lines: a file written whole,
    as nearly every one is. Counted over the bytes at once, not row by row, as the rows of a pass's wire.csv number millions."""
    if '"' in text or "\r" in text:
        return False
    data = np.frombuffer(text.encode(), dtype=np.uint8)
    ends = np.flatnonzero(data == ord("\n"))
    if len(data) and data[-1] != ord("\n"):
        ends = np.append(ends, len(data))
    commas = np.concatenate(([0], np.cumsum(data == ord(",")))).astype(np.int64)
    starts = np.concatenate(([0], ends[:-1] + 1))
    per_line, length = commas[ends] - commas[starts], ends - starts
    return bool(((per_line == fields - 1) | (length == 0)).all())


def _read_whole(text: str, header: list[str], numeric: list[str]) -> pd.DataFrame:
    """The rows of a file every row of which is whole (_every_row_whole), by pandas' own reader: the `numeric` columns as numbers
    where each of their cells reads as one (an empty cell NaN), every other column as text, an empty cell "". A numeric column
    with a cell that does not read as one is left as text, for whole_rows to coerce as it coerces the rows it reads itself.
    pandas' "high" precision reads a number to the bit as pd.to_numeric does; its "round_trip" differs in the last bit."""
    return pd.read_csv(
        io.StringIO(text),
        dtype={c: str for c in header if c not in numeric},
        keep_default_na=False,
        na_values={c: [""] for c in numeric},
        float_precision="high",
    )


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
K6_SAMPLE_METRICS = ["http_req_duration", "http_req_failed", "http_req_connecting", "dropped_iterations", "lab_sockets_opened"]


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
