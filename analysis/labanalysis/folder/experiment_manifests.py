"""The manifests of the experiments beside the bench (a sweep's, a floor's, an Autobahn run's, a clients run's), each read into a type declared as
the harness's class that wrote it (contract/<experiment>-manifest.schema.json; tests/test_contract.py holds each here to its
declaration there). The servers' catalogue entries and their engines stay servers.json's mappings, read by catalogue.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .bench_manifest import ZGC, CpuSplit
from .declared import ADDED_LATER, read_as
from .floor_folders import BEFORE_WARMTHS
from .provenance import FIELDS as PROVENANCE_FIELDS
from .provenance import Jdk, Provenance


@dataclass(frozen=True)
class SweepSettings:
    """What a sweep was asked to run (lab.sweep.SweepManifest.Settings)."""

    workloads: tuple[str, ...]
    concurrencies: tuple[int, ...]
    delay_ms: int
    warmup_seconds: int
    # The workload's warm-up before its first step lasts until the JIT settles, at most this.
    code_warmup_max_seconds: int
    seconds: int
    passes: int
    heap_mb: int
    wrk_timeout_seconds: int
    open_files_limit: int
    # Which limit open_files_limit is, so that a reader knows which one stops the sweep.
    open_files_limit_source: str
    # JFR sampled each step's window, and its sampler's CPU is in the server's.
    jfr_profile: bool = False
    # The most threads a server with a bounded pool was let start; none in sweeps before it was set.
    pool_threads: int | None = None


@dataclass(frozen=True)
class SweepPass:
    """How one server's workload in one pass ended (lab.sweep.SweepManifest.Pass)."""

    pass_: int
    server: str
    workload: str
    status: str
    seconds: float
    reason: str | None = None


@dataclass(frozen=True)
class SweepManifest:
    """manifest.json of a `make sweep` run (lab.sweep.SweepManifest)."""

    provenance: Provenance
    run_folder_format: int
    # The JDK the servers ran on (the provenance's is the harness's).
    server_jdk: Jdk
    jvm_flags: tuple[str, ...]
    cpu_split: CpuSplit | None
    settings: SweepSettings
    # wrk's version line, as it prints it.
    wrk: str
    servers: tuple[str, ...]
    # The concurrency each workload was swept to: a step is left out where a process of it would need more open files than allowed.
    highest_concurrency: Mapping[str, int]
    catalogue: tuple[Mapping[str, Any], ...] = ()
    engines: Mapping[str, Any] = field(default_factory=dict)
    passes: tuple[SweepPass, ...] = ()
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class FloorWarmup:
    """The park-and-release rounds a floor JVM ran before its first step (lab.floor.tasks.FloorDefaults.Warmup)."""

    rounds: int
    tasks: int


@dataclass(frozen=True)
class FloorSettings:
    """What a floor was asked to run (lab.floor.FloorManifest.Settings)."""

    models: tuple[str, ...]
    depths: tuple[int, ...]
    steps: tuple[int, ...]
    repeats: int
    heap_mb: int
    warmup: Mapping[str, FloorWarmup]
    live_locals_per_frame: int
    # 0 but in the measurement's own test: each task then holds a live byte array of this size.
    ballast_bytes: int
    seed: int
    cell_timeout_seconds: int
    # Cold, warm or both: warm parks after the warm-up's rounds, cold after none.
    warmths: tuple[str, ...] = field(default=BEFORE_WARMTHS, metadata={ADDED_LATER: "a floor from before the warmth was an axis parked warm JVMs"})


@dataclass(frozen=True)
class JdkRuntime:
    """What a JDK says of itself (lab.floor.JdkRuntime)."""

    runtime_version: str | None
    vendor: str | None
    vendor_version: str | None
    vm_name: str | None


@dataclass(frozen=True)
class FloorCell:
    """How one floor JVM ended (lab.floor.FloorCell.Outcome)."""

    order: int
    jdk: int
    jdk_version: str
    model: str
    depth: int
    repeat: int
    status: str
    steps_measured: int
    seconds: float
    log: str
    reason: str | None = None
    warmth: str = field(default=BEFORE_WARMTHS[0], metadata={ADDED_LATER: "a floor from before the warmth was an axis parked warm JVMs"})


@dataclass(frozen=True)
class FloorManifest:
    """manifest.json of a `make floor` run (lab.floor.FloorManifest)."""

    provenance: Provenance
    run_folder_format: int
    # The JDKs the tasks were parked on (the provenance's ran the harness).
    jdks: tuple[Jdk, ...]
    # By JDK feature version ("21", "25").
    jdk_runtimes: Mapping[str, JdkRuntime]
    jvm_flags: Mapping[str, tuple[str, ...]]
    settings: FloorSettings
    # What each model's task waits on.
    models: Mapping[str, str]
    collector: str = ZGC
    cells: tuple[FloorCell, ...] = ()
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class AutobahnArm:
    """An arm of an Autobahn run (lab.autobahn.AutobahnManifest.Arm): a server, and the lab's changes it ran without."""

    name: str
    server: str
    as_shipped: tuple[str, ...]
    # The alternatives the arm ran, each in place of a change of as_shipped.
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True)
class AutobahnPass:
    """A pass as planned (lab.autobahn.AutobahnManifest.Pass): an arm, its number, and its folder in the run folder."""

    arm: str
    pass_: int
    folder: str


@dataclass(frozen=True)
class AutobahnOutcome:
    """How a pass ended (lab.autobahn.AutobahnManifest.Outcome)."""

    arm: str
    pass_: int
    folder: str
    status: str
    reason: str | None
    wall_seconds: float


@dataclass(frozen=True)
class AutobahnManifest:
    """manifest.json of a `make autobahn-perf` run (lab.autobahn.AutobahnManifest)."""

    provenance: Provenance
    run_folder_format: int
    # wstest's version lines, as `wstest -a` prints them.
    wstest: str
    # The Autobahn cases run, as wstest takes them ("9.*").
    cases: tuple[str, ...]
    passes: int
    # The seed of each pass's order of arms.
    pass_seed: int
    # The largest frame and message every server takes here.
    max_frame_bytes: int
    server_jdk: Jdk
    jvm_flags: tuple[str, ...]
    cpu_split: CpuSplit | None
    arms: tuple[AutobahnArm, ...]
    catalogue: tuple[Mapping[str, Any], ...]
    engines: Mapping[str, Any]
    pass_order: tuple[AutobahnPass, ...] = ()
    outcomes: tuple[AutobahnOutcome, ...] = ()
    # One sentence for each pass that failed: its folder and why (its outcome says it too).
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClientsSettings:
    """What a `make clients` run was asked to run (lab.clients.ClientsManifest.Settings)."""

    servers: tuple[str, ...]
    clients: tuple[str, ...]
    requests: tuple[int, ...]
    delay_ms: int
    repeats: int
    sizes_bytes: tuple[int, ...]
    download_repeats: int
    streams: int
    stream_bytes: int
    seed: int


@dataclass(frozen=True)
class ClientsManifest:
    """`manifest.json` of a `make clients` run (lab.clients.ClientsManifest): the servers and clients share one JDK, the header's."""

    provenance: Provenance
    # The flags of the servers and of the client probe's JVM alike.
    jvm_flags: tuple[str, ...]
    curl_version: str
    settings: ClientsSettings
    # What each client's call holds while its answer is due.
    client_waits: Mapping[str, str]
    stub_url: str | None = None
    # Each server's URL, by name.
    servers: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


def clients_manifest(recorded: Mapping[str, Any]) -> ClientsManifest:
    """A clients run's manifest. One from before the provenance header held the header's properties at its top level: they are
    read as its header."""
    if "provenance" not in recorded:
        header = {name: recorded[name] for name in PROVENANCE_FIELDS if name in recorded}
        recorded = {"provenance": header} | {name: value for name, value in recorded.items() if name not in header}
    return read_as(ClientsManifest, recorded, "the clients run's manifest")
