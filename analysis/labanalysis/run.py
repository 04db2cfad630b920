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
import math
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from . import provenance


class RunFolderError(Exception):
    """A folder that is not a run folder, said in one line with what to do."""


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
# The export of k6's web dashboard (the harness's K6Dashboard.FILE): k6's own view of the load, for a person to open.
K6_DASHBOARD = "k6-dashboard.html"
K6_SAMPLE_COLUMNS = ["metric_name", "timestamp", "metric_value", "scenario", "extra_tags"]
K6_SAMPLE_METRICS = ["http_req_duration", "http_req_failed", "dropped_iterations", "lab_sockets_opened"]


@dataclass
class ServerRun:
    """One server's folder in a run: `coroutine`, `vthread-without-jfr`, `platform-r2`, ..."""

    folder: Path
    outcome: dict
    problems: list[str] = field(default_factory=list)
    # Of NEWER_SERIES, those another pass of the same run has: this pass lacking one is a problem, not an older run.
    expected: frozenset[str] = frozenset()

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

    @property
    def k6_dashboards(self) -> list[Path]:
        """k6's web dashboard as it ended the pass, one HTML file: k6's beside the harness, or each load generator's."""
        return [f for f in [self.folder / K6_DASHBOARD, *sorted(self.folder.glob(f"k6-segments/*/{K6_DASHBOARD}"))] if f.is_file()]

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
    def cpu(self) -> pd.DataFrame:
        """Once a second: time_s, phase, and the cores used by server, k6, stub and harness, steal (0..1), server_cpus_busy and
        load_cpus_busy (0..1); NaN where the harness left a cell empty (a process not on this host, a run without a CPU split)."""
        return self._series("cpu.csv", required="cpu.csv" in self.expected)

    @cached_property
    def memory(self) -> pd.DataFrame:
        """One row per snapshot and component: time_s, phase, sockets_open, component, bytes (see memory.COMPONENTS)."""
        return self._series("memory.csv", required="memory.csv" in self.expected)

    @cached_property
    def histogram(self) -> pd.DataFrame:
        """The largest classes at each snapshot: time_s, sockets_open, rank, class, instances, bytes."""
        return self._series("histogram.csv", required="histogram.csv" in self.expected)

    @cached_property
    def wire(self) -> pd.DataFrame:
        """Each request's response time as the wire saw it: from the request's arrival to the answer's first segment."""
        return self._series("wire.csv", required="wire.csv" in self.expected)

    @cached_property
    def vegeta(self) -> pd.DataFrame:
        """Each request vegeta sent for the curve (VegetaCurve); empty where k6 offered every step."""
        return self._series("vegeta.csv.gz", required=False)

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
        _ = (self.proc, self.jfr, self.load, self.pinned, self.cpu, self.memory, self.histogram, self.wire)
        _ = (self.k6_metrics, self.k6_samples, self.k6_script_errors)

    def _series(self, name: str, required: bool = True) -> pd.DataFrame:
        spec = SERIES[name]
        path = self.folder / name
        if not path.is_file():
            if required:
                self.problems.append(f"{name} is missing: the figures from it are left out")
            return pd.DataFrame(columns=spec.columns)
        text = _gunzip_what_is_there(path)[0] if path.suffix == ".gz" else path.read_text(errors="replace")
        frame, dropped, absent = _whole_rows(text, spec)
        if frame is None:
            self.problems.append(f"{name} lacks the columns {', '.join(absent)}: the figures from it are left out")
            return pd.DataFrame(columns=spec.columns)
        if absent:
            self.problems.append(f"{name} has no column {', '.join(absent)}: the figures from it are left out")
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
        """One pass per server, the first with JFR streaming: what the per-pass detail sections (series over time) draw. Figures
        compared between servers use every pass (repeats.each_pass)."""
        return [s for s in self.servers if s.jfr_streaming and s.repeat == 1]

    def server(self, name: str) -> ServerRun:
        return next(s for s in self.servers if s.name == name)

    # The manifest's facts of how the passes ran (issue 16); None, or empty, for a run from before the harness wrote them.

    @property
    def pass_order(self) -> list[str]:
        """The pass folders in the order they ran: interleaved, shuffled with `pass_seed`."""
        return list(self.manifest.get("passOrder") or [])

    @property
    def pass_seed(self) -> int | None:
        return self.manifest.get("passSeed")

    @property
    def cpu_split(self) -> dict | None:
        """{"serverCpus": [1], "loadCpus": [0]}: the CPUs the server ran on and those the load (k6, stub, harness) ran on; None without."""
        return self.manifest.get("cpuSplit")

    @property
    def json_rate_choice(self) -> str | None:
        """How the /json rate was chosen, once for every pass, in a sentence."""
        return self.manifest.get("jsonRateChoice")

    @property
    def kernel_memory_source(self) -> str | None:
        """Where memory.csv's kernel memory came from: `cgroup-v1` (the server's own) or `sockstat-host` (the host's TCP memory)."""
        return self.manifest.get("kernelMemorySource")

    @property
    def heap_bytes(self) -> float:
        """The heap the servers ran with (-Xmx, the profile's heapMb), in bytes; NaN if the manifest does not say."""
        heap_mb = self.manifest.get("profile", {}).get("heapMb")
        return heap_mb * (1 << 20) if heap_mb else math.nan

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
    folders = [folder / _folder_name(outcome) for outcome in manifest.get("outcomes", [])]
    expected = frozenset(name for name in NEWER_SERIES if any((f / name).is_file() for f in folders))
    status = provenance.status(manifest)
    if status != "complete":
        run.problems.append(f"the run is {status or 'of unknown status'}: it stopped before every server had run")
    finished = set()
    for outcome in manifest.get("outcomes", []):
        server = ServerRun(folder / _folder_name(outcome), outcome, expected=expected)
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
        partial = ServerRun(folder / name, {"server": name, "status": "incomplete"}, expected=expected)
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


def _whole_rows(text: str, spec: Series) -> tuple[pd.DataFrame | None, int, list[str]]:
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
