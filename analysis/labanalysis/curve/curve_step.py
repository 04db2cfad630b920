"""One measured step of a latency-throughput curve: what the curve's readers (labanalysis.curve.curve, labanalysis.curve.curve_sent) hand each
other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One measured curve step: its phase, endpoint and offered rate (0 for the full step's closed loop), its seconds of load (from
    k6's start), the load generator that offered it, and when its settling phase began (where a vegeta attack starts its schedule)."""

    phase: str
    endpoint: str
    rate_per_s: int
    from_s: int
    to_s: int
    generator: str = "k6"
    settle_from_s: int | None = None
    searched: bool = False
    # The full step: a closed loop (wrk) offered the endpoint as fast as the server answered, at no rate of its own.
    closed_loop: bool = False

    @property
    def seconds(self) -> int:
        return self.to_s - self.from_s
