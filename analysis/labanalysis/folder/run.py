"""Loading one run folder: the manifest, and each server's series, k6 summary, k6 samples and pinning events.

A run folder may be partial: a server died, the harness was stopped, a file was cut short. Loading
never raises for that; each server run keeps a list of `problems`, one sentence each, that the
report shows in red, and every series is an empty frame (or the rows that were whole) instead.
Only a folder without a readable manifest is not a run at all (RunFolderError).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from .bench_manifest import BenchManifest, CpuSplit, HostLimits, LoadPhase
from .declared import DeclaredError, read_as
from .outcome import PassOutcome
from .series import SERIES, gunzip_what_is_there, read_k6_samples, refused_version, whole_rows


class RunFolderError(Exception):
    """A folder that is not a run folder, said in one line with what to do."""


# The export of k6's web dashboard (the harness's K6Dashboard.FILE): k6's own view of the load, for a person to open.
K6_DASHBOARD = "k6-dashboard.html"


@dataclass
class ServerRun:
    """One server's folder in a run: `ktor-coroutine`, `jetty-virtual-without-jfr`, `jetty-platform-r2`, ..."""

    folder: Path
    outcome: PassOutcome
    problems: list[str] = field(default_factory=list)
    # Which of the pass's idle sockets its figures per socket are: `cold` (opened before any load) or `warm` (opened again after
    # it), as the run's profile declares (socketsHeadline); `cold` for a run from before the profile could open them warm.
    sockets_headline: str = "cold"

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def server(self) -> str:
        return self.outcome.server

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    @property
    def jfr_streaming(self) -> bool:
        return self.outcome.jfr_streaming

    @property
    def repeat(self) -> int:
        return self.outcome.repeat

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
        return self._series("cpu.csv")

    @cached_property
    def memory(self) -> pd.DataFrame:
        """One row per snapshot and component: time_s, phase, sockets_open, component, bytes (see memory.COMPONENTS)."""
        return self._series("memory.csv")

    @cached_property
    def histogram(self) -> pd.DataFrame:
        """The largest classes at each snapshot: time_s, sockets_open, rank, class, instances, bytes."""
        return self._series("histogram.csv")

    @cached_property
    def wire(self) -> pd.DataFrame:
        """Each request's response time as the wire saw it: from the request's arrival to the answer's first segment. On a host that
        lets the harness read no packets there is none, and the outcome's marks say why (so its absence is not a problem twice)."""
        return self._series("wire.csv", required=False)

    @cached_property
    def vegeta(self) -> pd.DataFrame:
        """Each request vegeta sent for the curve (VegetaCurve); empty where k6 offered every step."""
        return self._series("vegeta.csv.gz", required=False)

    @cached_property
    def wire_phases(self) -> dict[str, pd.DataFrame]:
        """The wire's requests by phase (`wire`'s rows of each, in their order), split once: a pass's wire holds every request, and
        each step's and phase's figures read them by phase."""
        frame = self.wire
        return {} if frame.empty else dict(iter(frame.groupby("phase", sort=False)))

    def wire_in(self, phase: str) -> pd.DataFrame:
        """The wire's requests in `phase`; none (the wire's columns) where it saw none."""
        return self.wire_phases.get(phase, self.wire.iloc[0:0])

    @cached_property
    def vegeta_attacks(self) -> dict[str, pd.DataFrame]:
        """vegeta's rows by attack (`vegeta`'s rows of each, in their order), split once: a pass's attacks are each read many
        times, and comparing every row's attack each time took most of a report's minute."""
        frame = self.vegeta
        return {} if frame.empty else dict(iter(frame.groupby("attack", sort=False)))

    @cached_property
    def closed_loop(self) -> pd.DataFrame:
        """What wrk counted in each full step of the curve (ClosedLoopStep); empty where the profile has none."""
        return self._series("closed-loop.csv", required=False)

    @cached_property
    def curve_search(self) -> pd.DataFrame:
        """The rate the curve's search chose for each of its slots (CurveSearch); empty where the profile searched none."""
        return self._series("curve-search.csv", required=False)

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
        """k6's raw samples (k6-metrics.csv.gz) of the metrics the analysis uses (series.read_k6_samples); the rows before any cut."""
        frame, problem = read_k6_samples(self.folder / "k6-metrics.csv.gz")
        if problem:
            self.problems.append(problem)
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
        text = gunzip_what_is_there(path)[0] if path.suffix == ".gz" else path.read_text(errors="replace")
        frame, dropped, absent = whole_rows(text, spec)
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
    manifest: BenchManifest
    servers: list[ServerRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.manifest.provenance.complete

    @property
    def comparable(self) -> list[ServerRun]:
        """One pass per server, the first with JFR streaming: what the per-pass detail sections (series over time) draw. Figures
        compared between servers use every pass (repeats.each_pass)."""
        return [s for s in self.servers if s.jfr_streaming and s.repeat == 1]

    def server(self, name: str) -> ServerRun:
        return next(s for s in self.servers if s.name == name)

    # The manifest's facts of how the passes ran, by the names the analysis uses.

    @property
    def catalogue(self) -> tuple[Mapping[str, Any], ...]:
        """Each server as servers.json declared it when the run started (catalogue.py reads the entries); none in a run from before."""
        return self.manifest.catalogue

    @property
    def pass_order(self) -> list[str]:
        """The pass folders in the order they ran: interleaved, shuffled with `pass_seed`."""
        return list(self.manifest.pass_order)

    @property
    def pass_seed(self) -> int | None:
        return self.manifest.pass_seed

    @property
    def cpu_split(self) -> CpuSplit | None:
        """The CPUs the server ran on and those the load (k6, stub, harness) ran on; None where they shared every CPU."""
        return self.manifest.cpu_split

    @property
    def limits(self) -> HostLimits:
        """The host's limits as the preflight read them."""
        return self.manifest.limits

    @property
    def timeline(self) -> tuple[LoadPhase, ...]:
        """Every pass's load phases in order, in seconds since its k6 started (each outcome's load_start_epoch_ms puts them on the clock)."""
        return self.manifest.timeline

    @property
    def json_rate_choice(self) -> str | None:
        """How the /json rate was chosen, once for every pass, in a sentence."""
        return self.manifest.json_rate_choice

    @property
    def kernel_memory_source(self) -> str | None:
        """Where memory.csv's kernel memory came from: `cgroup-v1` (the server's own) or `sockstat-host` (the host's TCP memory)."""
        return self.manifest.kernel_memory_source

    @property
    def collector(self) -> str:
        """Every server's garbage collector, as lab.support.Collector names it: `zgc` (the lab's, and every run's before the
        manifest named it) or `g1`."""
        return self.manifest.collector

    @property
    def warm_sockets(self) -> bool:
        """Whether the passes opened their idle sockets again after the load, warm (the profile's warmSockets)."""
        return self.manifest.profile.warm_sockets

    @property
    def sockets_headline(self) -> str:
        """Which sockets the figures per socket are, `cold` or `warm`: the profile's socketsHeadline."""
        return self.manifest.profile.sockets_headline

    @property
    def heap_bytes(self) -> float:
        """The heap the servers ran with (-Xmx, the profile's heapMb), in bytes."""
        return self.manifest.profile.heap_mb * (1 << 20)

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
    if refused := refused_version(folder, manifest):
        raise RunFolderError(refused)
    try:
        manifest = read_as(BenchManifest, manifest, "the manifest")
    except DeclaredError as e:
        raise RunFolderError(f"{manifest_path}: {e}") from e
    run = Run(folder, manifest)
    if not run.complete:
        run.problems.append(f"the run is {manifest.provenance.status}: it stopped before every server had run")
    finished = set()
    for outcome in _placed(manifest_path, manifest.outcomes):
        server = ServerRun(folder / outcome.folder, outcome, sockets_headline=run.sockets_headline)
        finished.add(server.server)
        if not server.folder.is_dir():
            server.problems.append("its folder is missing: nothing of it can be shown")
        elif not server.ok:
            server.problems.append(f"{outcome.status}: {outcome.reason or 'no reason recorded'}")
        # A pass that ran to the end with k6 checks failed or sockets never opened: its figures are not the profile's.
        server.problems.extend(outcome.marks)
        run.servers.append(server)
    for name in manifest.servers:
        if name in finished:
            continue
        # The harness writes an outcome when a server's run ends; a server without one was
        # running when the harness stopped (its folder holds what it got to), or never started.
        partial = ServerRun(folder / name, PassOutcome.incomplete(name), sockets_headline=run.sockets_headline)
        if partial.folder.is_dir():
            partial.problems.append("incomplete: the harness stopped during its run; what it recorded is shown")
            run.servers.append(partial)
        else:
            run.problems.append(f"{name} never ran: the harness stopped before it")
    return run


def _placed(manifest_path: Path, outcomes: tuple[PassOutcome, ...]) -> tuple[PassOutcome, ...]:
    """The passes' outcomes, each naming the folder it was written to."""
    if unplaced := [o.server for o in outcomes if not o.folder]:
        raise RunFolderError(f"{manifest_path}: the outcomes of {', '.join(unplaced)} name no folder; its run predates the run-folder format")
    return outcomes
