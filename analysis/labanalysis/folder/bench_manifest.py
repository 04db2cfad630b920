"""The parts of a bench run's manifest the analysis reads, each read into a type declared as the harness's class that wrote it
(contract/bench-manifest.schema.json; tests/test_contract.py holds each here to its declaration there)."""

from __future__ import annotations

from dataclasses import dataclass

# The collectors a run's servers may run on, by the name the manifest gives (lab.support.Collector's slug), as a reader sees them.
ZGC = "zgc"
COLLECTORS = {ZGC: "ZGC", "g1": "G1"}


def collector_of(manifest: dict) -> str:
    """The collector a run's (a bench's or a floor's) manifest names; one that names none is from before the collector was an
    axis, when every JVM ran on ZGC."""
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
