"""Loading one run folder: the manifest, and each server's series, k6 summary, k6 samples and pinning events.

A run folder may be partial: a server died, the harness was stopped, a file was cut short. Loading
never raises for that; each server run keeps a list of `problems`, one sentence each, that the
report shows in red, and every series is an empty frame (or the rows that were whole) instead.
Only a folder without a readable manifest is not a run at all (RunFolderError).
"""

from __future__ import annotations

import csv
import io
import json
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from . import provenance


class RunFolderError(Exception):
    """A folder that is not a run folder, said in one line with what to do."""


# The columns each series must have for the analysis to use it (the harness's ServerRun writes them).
SERIES_COLUMNS = {
    "proc.csv": ["time_s", "phase", "rss_bytes", "pss_bytes", "threads", "fds", "maps"],
    "jfr-series.csv": ["time_s", "phase", "metric", "value"],
    "load.csv": ["time_s", "phase", "sockets_opened_total", "requests_total"],
    "pinned.csv": ["time_s", "phase", "duration_ms", "top_frames"],
}
K6_SAMPLE_COLUMNS = ["metric_name", "timestamp", "metric_value", "scenario", "extra_tags"]
K6_SAMPLE_METRICS = ["http_req_duration", "http_req_failed", "dropped_iterations", "lab_sockets_opened"]


@dataclass
class ServerRun:
    """One server's folder in a run: `coroutine`, `vthread-without-jfr`, `platform-r2`, ..."""

    folder: Path
    outcome: dict
    problems: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def server(self) -> str:
        return self.outcome["server"]

    @property
    def ok(self) -> bool:
        return self.outcome.get("status") == "ok"

    @property
    def jfr_streaming(self) -> bool:
        return self.outcome.get("jfrStreaming", True)

    @property
    def repeat(self) -> int:
        return self.outcome.get("repeat", 1)

    @cached_property
    def proc(self) -> pd.DataFrame:
        """/proc samples once a second: time_s, phase, rss_bytes, pss_bytes, threads, fds, maps."""
        return self._series("proc.csv")

    @cached_property
    def jfr(self) -> pd.DataFrame:
        """JFR's series, tidy: time_s, phase, metric, value."""
        return self._series("jfr-series.csv", required=self.jfr_streaming)

    @cached_property
    def load(self) -> pd.DataFrame:
        """k6's counts once a second: time_s, phase, sockets_opened_total, requests_total, ..."""
        return self._series("load.csv")

    @cached_property
    def pinned(self) -> pd.DataFrame:
        """One row per jdk.VirtualThreadPinned event: time_s, phase, duration_ms, top_frames."""
        return self._series("pinned.csv", required=self.jfr_streaming)

    @cached_property
    def k6_metrics(self) -> dict:
        """The k6 summary's metrics, by name (`http_req_duration{endpoint:json}`, ...); empty if k6 wrote none."""
        path = self.folder / "k6-summary.json"
        if not path.is_file():
            self.problems.append("k6-summary.json is missing: k6 did not finish, so its latency summary is absent")
            return {}
        try:
            return json.loads(path.read_text())["metrics"]
        except (json.JSONDecodeError, KeyError, TypeError):
            self.problems.append("k6-summary.json is not a whole k6 summary: its latency figures are left out")
            return {}

    @cached_property
    def k6_samples(self) -> pd.DataFrame:
        """k6's raw samples (k6-metrics.csv.gz) of the metrics the analysis uses; the rows before any cut.

        Columns: metric_name, timestamp (whole epoch seconds), metric_value, scenario, extra_tags
        (`endpoint=json`, ...). Only K6_SAMPLE_METRICS are kept: a local run writes millions of rows.
        """
        path = self.folder / "k6-metrics.csv.gz"
        if not path.is_file():
            self.problems.append("k6-metrics.csv.gz is missing: latency over time is left out")
            return pd.DataFrame(columns=K6_SAMPLE_COLUMNS)
        text, cut = _gunzip_what_is_there(path)
        try:
            # In chunks, keeping only the metrics used: a local run has millions of samples, most of them other metrics.
            chunks = pd.read_csv(io.StringIO(text), usecols=K6_SAMPLE_COLUMNS, dtype=str, chunksize=500_000)
            frame = pd.concat([chunk[chunk["metric_name"].isin(K6_SAMPLE_METRICS)] for chunk in chunks], ignore_index=True)
        except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
            self.problems.append("k6-metrics.csv.gz is not a k6 CSV output: latency over time is left out")
            return pd.DataFrame(columns=K6_SAMPLE_COLUMNS)
        del text
        for column in ["timestamp", "metric_value"]:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
        frame = frame.dropna(subset=["timestamp", "metric_value"]).reset_index(drop=True)
        if cut:
            self.problems.append(f"k6-metrics.csv.gz is cut short: {len(frame):,} whole samples read, the rest left out")
        return frame

    @cached_property
    def k6_script_errors(self) -> int:
        """How many times the k6 script threw (k6.log, `source=stacktrace`): each skips the rest of that iteration's requests."""
        path = self.folder / "k6.log"
        if not path.is_file():
            return 0
        errors = sum(1 for line in path.read_text(errors="replace").splitlines() if "level=error" in line and "source=stacktrace" in line)
        if errors:
            self.problems.append(
                f"k6's script threw {errors:,} time(s) (see k6.log): the requests those iterations were to make are missing from its figures"
            )
        return errors

    def read_all(self) -> None:
        """Reads every file now, so `problems` is complete before anything is shown."""
        _ = (self.proc, self.jfr, self.load, self.pinned, self.k6_metrics, self.k6_samples, self.k6_script_errors)

    def _series(self, name: str, required: bool = True) -> pd.DataFrame:
        columns = SERIES_COLUMNS[name]
        path = self.folder / name
        if not path.is_file():
            if required:
                self.problems.append(f"{name} is missing: the figures from it are left out")
            return pd.DataFrame(columns=columns)
        frame, dropped = _whole_rows(path.read_text(errors="replace"), columns)
        if frame is None:
            self.problems.append(f"{name} lacks the columns {', '.join(columns)}: the figures from it are left out")
            return pd.DataFrame(columns=columns)
        if dropped:
            self.problems.append(f"{name} has {dropped} cut-off line(s), left out")
        return frame


@dataclass
class Run:
    folder: Path
    manifest: dict
    servers: list[ServerRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return provenance.status(self.manifest) == "complete"

    @property
    def comparable(self) -> list[ServerRun]:
        """The server runs to compare head to head: with JFR streaming, first repeat (one per server)."""
        return [s for s in self.servers if s.jfr_streaming and s.repeat == 1]

    def server(self, name: str) -> ServerRun:
        return next(s for s in self.servers if s.name == name)

    def read_all(self) -> None:
        for server in self.servers:
            server.read_all()

    def all_problems(self) -> list[str]:
        """Every problem found so far, the run's first, each server's prefixed with its name."""
        return self.problems + [f"{s.name}: {p}" for s in self.servers for p in s.problems]


def load_run(folder: str | Path) -> Run:
    """Reads a run folder as the harness wrote it; raises RunFolderError only if it has no readable manifest."""
    folder = Path(folder)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise RunFolderError(f"{folder} has no manifest.json; pass a folder from results/, e.g. RUN=results/latest")
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as e:
        raise RunFolderError(
            f"{manifest_path} is not valid JSON ({e.msg}, line {e.lineno}); the run was cut off while writing it, so there is nothing to report"
        ) from e
    run = Run(folder, manifest)
    status = provenance.status(manifest)
    if status != "complete":
        run.problems.append(f"the run is {status or 'of unknown status'}: it stopped before every server had run")
    finished = set()
    for outcome in manifest.get("outcomes", []):
        server = ServerRun(folder / _folder_name(outcome), outcome)
        finished.add(server.server)
        if not server.folder.is_dir():
            server.problems.append("its folder is missing: nothing of it can be shown")
        elif not server.ok:
            server.problems.append(f"{outcome.get('status', 'failed')}: {outcome.get('reason', 'no reason recorded')}")
        # A pass that ran to the end with k6 checks failed or sockets never opened: its figures are not the profile's.
        server.problems.extend(outcome.get("marks", []))
        run.servers.append(server)
    for name in manifest.get("servers", []):
        if name in finished:
            continue
        # The harness writes an outcome when a server's run ends; a server without one was
        # running when the harness stopped (its folder holds what it got to), or never started.
        partial = ServerRun(folder / name, {"server": name, "status": "incomplete"})
        if partial.folder.is_dir():
            partial.problems.append("incomplete: the harness stopped during its run; what it recorded is shown")
            run.servers.append(partial)
        else:
            run.problems.append(f"{name} never ran: the harness stopped before it")
    return run


def _folder_name(outcome: dict) -> str:
    """The folder the harness gave an outcome, as it recorded it; rebuilt as Pass.folder does for a run from before it did."""
    if "folder" in outcome:
        return outcome["folder"]
    name = outcome["server"]
    if not outcome.get("jfrStreaming", True):
        name += "-without-jfr"
    if outcome.get("repeat", 1) > 1:
        name += f"-r{outcome['repeat']}"
    return name


def _whole_rows(text: str, columns: list[str]) -> tuple[pd.DataFrame | None, int]:
    """The rows of a CSV that have every field of its header, and how many did not (a line cut off mid-write).

    None if the header lacks one of `columns`. pandas would pad a short last line with NaN, which
    a mean or a count would then take as data, so short rows are dropped here and counted.
    """
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None or not set(columns) <= set(header):
        return None, 0
    whole, dropped = [], 0
    for row in rows:
        if len(row) == len(header):
            whole.append(row)
        elif row:
            dropped += 1
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(whole)
    out.seek(0)
    frame = pd.read_csv(out, dtype={"phase": str, "top_frames": str, "metric": str, "extra_tags": str, "scenario": str, "metric_name": str})
    numeric = [c for c in columns if c not in ("phase", "metric", "top_frames", "metric_name", "scenario", "extra_tags")]
    for column in numeric:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    bad = frame[numeric].isna().any(axis=1) if numeric else pd.Series(False, index=frame.index)
    return frame[~bad].reset_index(drop=True), dropped + int(bad.sum())


def _gunzip_what_is_there(path: Path) -> tuple[str, bool]:
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
