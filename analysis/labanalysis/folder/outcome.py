"""How one pass of a bench run ended, as the harness recorded it in the manifest's `outcomes` (lab.bench.ServerOutcome): read
into a type, not looked up by key. contract/bench-manifest.schema.json, made from the Kotlin class, declares it;
tests/test_contract.py holds this class to that declaration, each property with its name, its type and its default."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .declared import facts, read_as

OK = "ok"
# What a pass is whose server was running when the harness stopped: it recorded no outcome.
INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class WallClockStep:
    """A move of the host's wall clock during a pass (lab.bench.collect.WallClockStep): when, on the pass's monotonic clock, and by
    how much; k6 stamps its samples by the wall clock."""

    at_seconds: float
    moved_ms: int


@dataclass(frozen=True)
class PassOutcome:
    """One pass's end and what the harness counted in it; the statistics are the analysis's own, elsewhere. Times by the
    host's wall clock, which k6 stamps its samples with."""

    server: str
    status: str
    seconds: float
    # The pass's folder in the run folder (`jetty-virtual`, `jetty-virtual-r2`, ...).
    folder: str | None = None
    jfr_streaming: bool = True
    repeat: int = 1
    reason: str | None = None
    phase_at_end: str | None = None
    peak_open_sockets: int | None = None
    peak_rss_bytes: int | None = None
    peak_threads: int | None = None
    json_requests: int | None = None
    load_start_epoch_ms: int | None = None
    k6_start_epoch_ms: int | None = None
    json_steady_from_epoch_second: int | None = None
    dashboard_steady_from_epoch_second: int | None = None
    failed_checks: int | None = None
    dashboard_failures: int | None = None
    sockets_opened: int | None = None
    sockets_planned: int | None = None
    # What makes this pass's figures not the profile's, though its server ran to the end: a sentence each.
    marks: tuple[str, ...] = ()
    pinned_events: int | None = None
    kernel_memory_source: str | None = None
    # Each move of the wall clock against the pass's monotonic one.
    wall_clock_steps: tuple[WallClockStep, ...] = ()
    futex_hash: str | None = None
    pool_threads_max: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == OK

    def steady_from_epoch_second(self, scenario: str) -> int | None:
        """The first whole second of `scenario`'s (`json`, `dashboard`) steady phase: k6's samples from it on are steady."""
        return {"json": self.json_steady_from_epoch_second, "dashboard": self.dashboard_steady_from_epoch_second}[scenario]

    @classmethod
    def read(cls, recorded: Mapping[str, Any]) -> PassOutcome:
        """The outcome the manifest recorded; a property it leaves out is the writer's default, as the declaration gives it."""
        return read_as(cls, recorded, "an outcome")

    @classmethod
    def incomplete(cls, server: str) -> PassOutcome:
        """A pass whose server was running when the harness stopped, so that no outcome was recorded."""
        return cls(server=server, status=INCOMPLETE, seconds=math.nan)

    def facts(self) -> dict[str, Any]:
        """Every property, by the name the manifest records it under."""
        return facts(self)
