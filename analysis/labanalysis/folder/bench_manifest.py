"""A bench run's manifest, read into types declared as the harness's classes that wrote it (contract/bench-manifest.schema.json;
tests/test_contract.py holds each here to its declaration there)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .declared import ADDED_LATER, recorded
from .outcome import PassOutcome
from .provenance import Provenance

# The collectors a run's servers may run on, by the name the manifest gives (lab.support.Collector's slug), as a reader sees them.
ZGC = "zgc"
COLLECTORS = {ZGC: "ZGC", "g1": "G1"}


def collector_of(manifest: Mapping[str, Any]) -> str:
    """The collector a manifest names (a bench's or a floor's, read as JSON to find a run's siblings, before either is read into its
    type); one that names none is from before the collector was an axis, when every JVM ran on ZGC."""
    return manifest.get("collector", ZGC)


def collector_label(collector: str) -> str:
    """A collector as a reader sees it: `G1` for `g1`."""
    return COLLECTORS.get(collector, collector)


@dataclass(frozen=True)
class LoadPhase:
    """One phase of every pass's load (lab.bench.load.LoadPhase), in seconds since its k6 started: the manifest's `timeline`."""

    name: str
    from_seconds: int
    to_seconds: int
    # The endpoint offered in it (`json`, `dashboard`); none in the socket steps.
    endpoint: str | None = None
    rate_per_second: int = 0
    # A warm-up: the rate rises from 1 a second to rate_per_second over the phase.
    ramp: bool = False
    # Who offered its requests: k6, vegeta (the steady /json phase or the curve's steps) or wrk (the curve's full step).
    generator: str = "k6"
    # A curve step whose rate the pass's search chose while it ran.
    searched: bool = False


@dataclass(frozen=True)
class CpuSplit:
    """The CPUs the server ran on, and those the load (k6, the stub, the harness) ran on (lab.bench.host.CpuSplit)."""

    server_cpus: tuple[int, ...]
    load_cpus: tuple[int, ...]


@dataclass(frozen=True)
class HostLimits:
    """The host's limits the preflight read (lab.bench.host.HostLimits): per process, and the kernel's."""

    open_files_hard: int
    max_map_count: int
    pid_max: int
    threads_max: int
    local_port_first: int
    local_port_last: int
    somaxconn: int


@dataclass(frozen=True)
class Profile:
    """How long and how hard each phase of a pass is (lab.bench.load.Profile, from loadtests/profiles/<name>.json): its KDoc, and
    each `*Reason`, say why."""

    description: str
    idle_sockets: int
    socket_steps: int
    step_hold_seconds: int
    ping_interval_seconds: int
    json_rate_per_second: int
    json_warmup_seconds: int
    json_seconds: int
    calibration_seconds: int
    dashboard_rate_per_second: int
    dashboard_seconds: int
    heap_mb: int
    json_generator: str = "k6"
    dashboard_warmup_seconds: int = 0
    compare_without_jfr: bool = False
    repeats: int = 1
    pin_traps_per_second: int = 0
    server_cpus: int = 0
    json_rate_reason: str = ""
    dashboard_rate_reason: str = ""
    json_curve_rates_per_second: tuple[int, ...] = ()
    dashboard_curve_rates_per_second: tuple[int, ...] = ()
    curve_step_seconds: int = 0
    curve_first_settle_seconds: int = 2
    json_curve_p99_bound_ms: float = 0.0
    dashboard_curve_p99_bound_ms: float = 0.0
    curve_generator: str = "k6"
    curve_connections: int = 256
    curve_connections_reason: str = ""
    curve_search_steps: int = 0
    json_full_step_seconds: int = 0
    json_full_step_reason: str = ""
    curve_server_cpu_budget: float = 0.0
    curve_server_cpu_budget_reason: str = ""
    warm_sockets: bool = False
    # Which sockets the figures per socket are: `cold`, those a server takes as it starts, or `warm`.
    sockets_headline: str = "cold"
    sockets_headline_reason: str = ""

    def settings(self) -> dict[str, Any]:
        """Every setting a figure depends on, by the name the profile gives it: the profile less its words (the description and
        each reason)."""
        return {name: value for name, value in recorded(self).items() if name != "description" and not name.endswith("Reason")}


@dataclass(frozen=True)
class PreflightDecision:
    """What the preflight let the run do on this host (lab.bench.host.Preflight.Decision)."""

    # The idle sockets each pass opens: the profile's, or fewer where the host's limits allow fewer.
    idle_sockets: int
    requested_sockets: int
    # How many loopback source addresses k6 spreads its sockets over.
    source_addresses: int
    notes: tuple[str, ...]
    # The most threads a bounded pool may start in the run (the server's --threads).
    pool_threads: int | None = field(default=None, metadata={ADDED_LATER: "a run from before the pool's bound was set by the run"})


@dataclass(frozen=True)
class CalibrationProbe:
    """One probe of the /json rate a server sustains (lab.bench.RateCalibration.Probe)."""

    server: str
    rate_per_second: int
    sustained: bool
    dropped_iterations: int | None
    achieved_per_second: float | None
    json_p99_ms: float | None
    failure: str | None = None


@dataclass(frozen=True)
class Calibration:
    """The /json rate every server sustains, as the calibration found it (lab.bench.RateCalibration.Result)."""

    target_per_second: int
    floor_per_second: int
    rate_per_second: int
    unsustained: tuple[str, ...]
    probes: tuple[CalibrationProbe, ...]


@dataclass(frozen=True)
class ProcessCpu:
    """A process and the cores it used in a host check's window (lab.bench.host.QuietHost.ProcessCpu)."""

    pid: int
    cores: float
    command: str


@dataclass(frozen=True)
class LabProcess:
    """Another of the lab's runs found running (lab.bench.host.QuietHost.LabProcess)."""

    pid: int
    command: str
    command_line: str


@dataclass(frozen=True)
class HostReading:
    """What a host check read over its window (lab.bench.host.QuietHost.Reading)."""

    window_seconds: float
    other_cores: float
    busiest: tuple[ProcessCpu, ...]
    load_average1m: float
    online_cpus: int
    other_lab_runs: tuple[LabProcess, ...]
    steal_cores: float = 0.0


@dataclass(frozen=True)
class HostCheck:
    """Whether the host was quiet enough before a pass (lab.bench.host.QuietHost.Check): QUIET, MARK (the pass is marked) or
    REFUSE, and why."""

    reading: HostReading
    verdict: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class LoadGeneratorSegment:
    """A host that ran one k6 execution segment of the load (lab.bench.load.LoadGenerators.Segment)."""

    host: str
    execution_segment: str


@dataclass(frozen=True)
class BenchManifest:
    """manifest.json of a `make bench` run (lab.bench.Manifest): what ran, on what, and how each pass ended."""

    provenance: Provenance
    run_folder_format: int
    profile_name: str
    profile: Profile
    preflight: PreflightDecision
    limits: HostLimits
    harness_jdk: str
    jvm_flags: tuple[str, ...]
    k6_version: str
    servers: tuple[str, ...]
    # Why the run stopped early, where it did.
    reason: str | None = None
    collector: str = ZGC
    jfr_flags: tuple[str, ...] = ()
    vegeta: str = ""
    wrk: str = ""
    k6_dashboard: bool = False
    k6_environment: Mapping[str, str] = field(default_factory=dict)
    vegeta_environment: Mapping[str, str] = field(default_factory=dict)
    # Each server as servers.json declared it when the run started (catalogue.py reads the entries).
    catalogue: tuple[Mapping[str, Any], ...] = ()
    # The engines of the catalogue's servers, with what the lab changed in each.
    engines: Mapping[str, Any] = field(default_factory=dict)
    pin_threshold_ms: int | None = None
    # The /json rate every pass ran at, where the run chose one (a calibration, or RATE=), and how it was chosen.
    json_rate_per_second: int | None = None
    json_rate_choice: str | None = None
    calibration: Calibration | None = None
    timeline: tuple[LoadPhase, ...] = ()
    # The pass folders in the order they ran: interleaved, shuffled with pass_seed.
    pass_order: tuple[str, ...] = ()
    pass_seed: int | None = None
    outcomes: tuple[PassOutcome, ...] = ()
    bind_address: str = "127.0.0.1"
    cpu_split: CpuSplit | None = None
    # Where memory.csv's kernel memory came from: `cgroup-v1` (the server's own) or `sockstat-host` (the host's TCP memory).
    kernel_memory_source: str | None = None
    server_args: tuple[str, ...] = ()
    host_checks: tuple[HostCheck, ...] = ()
    load_generators: tuple[LoadGeneratorSegment, ...] = ()
    # One sentence for each pass that failed; its outcome says more. Before the harness recorded them, the outcomes alone did.
    problems: tuple[str, ...] = ()

    @property
    def json_rate(self) -> int:
        """The /json rate every pass offered: the run's choice, else the profile's."""
        return self.json_rate_per_second if self.json_rate_per_second is not None else self.profile.json_rate_per_second
