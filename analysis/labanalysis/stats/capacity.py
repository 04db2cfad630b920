"""A server's capacity from what its CPU did at the rates it held: the fixed part and the cost of a request, fitted by least squares.

The highest step a server held under a p99 bound is read off one noisy second of latency, and moved 26% from pass to pass here. The
CPU a server spends at the steps it held moves far less: a line through them, cores = fixed + rate x cost, gives what it spends
serving nothing (the idle sockets' pings, GC, the JIT, JFR: the intercept) and what one request costs (the slope). What a budget of
B cores can serve is then (B - fixed) / cost: the rate at which the line meets the budget (docs/under-load.md, "Capacity per CPU").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CapacityFit:
    """cores = fixed_cores + rate x us_per_request / 1e6, fitted over `steps` steps."""

    fixed_cores: float
    us_per_request: float
    steps: int
    # What the fit says of its own precision: the residuals' standard deviation (cores), and the mean and the sum of squared
    # deviations of the rates it was fitted over (stderr_cores_at).
    residual_sd_cores: float = math.nan
    mean_rate_per_s: float = math.nan
    rate_squares: float = math.nan

    def cores_at(self, rate_per_s: float) -> float:
        """The line's cores at `rate_per_s`."""
        return self.fixed_cores + rate_per_s * self.us_per_request / 1e6

    def stderr_cores_at(self, rate_per_s: float) -> float:
        """The standard error of the line's cores at `rate_per_s` (least squares: s * sqrt(1/n + (x - mean)^2 / Sxx)): how
        precisely the points it was fitted over place it there, within the one pass. NaN where the fit does not say."""
        if self.steps <= 2 or not self.rate_squares > 0:
            return math.nan
        return self.residual_sd_cores * math.sqrt(1 / self.steps + (rate_per_s - self.mean_rate_per_s) ** 2 / self.rate_squares)

    def capacity_per_s(self, budget_cores: float) -> float:
        """The rate at which the line reaches `budget_cores`: what that budget serves, the fixed part paid. NaN where the fit has no
        positive cost, or the fixed part alone fills the budget."""
        if math.isnan(self.us_per_request) or self.us_per_request <= 0 or not budget_cores > self.fixed_cores:
            return math.nan
        return (budget_cores - self.fixed_cores) / (self.us_per_request / 1e6)

    def per_cpu(self, budget_cores: float) -> float:
        """capacity_per_s over the budget: requests a second per core of budget, so that budgets of another size compare."""
        return self.capacity_per_s(budget_cores) / budget_cores if budget_cores > 0 else math.nan


NO_FIT = CapacityFit(math.nan, math.nan, 0)


def capacity_fit(rates_per_s, cores) -> CapacityFit:
    """The least-squares line of `cores` against `rates_per_s` (the achieved rate and the server's mean cores of each step held);
    NO_FIT's NaNs with fewer than two distinct rates, where a line is not determined."""
    pairs = [(float(r), float(c)) for r, c in zip(rates_per_s, cores, strict=True) if not math.isnan(float(r)) and not math.isnan(float(c))]
    if len({r for r, _ in pairs}) < 2:
        return NO_FIT
    rates, used = np.array([r for r, _ in pairs]), np.array([c for _, c in pairs])
    slope, intercept = np.polyfit(rates, used, 1)
    residuals = used - (intercept + slope * rates)
    sd = float(np.sqrt((residuals**2).sum() / (len(pairs) - 2))) if len(pairs) > 2 else math.nan
    return CapacityFit(float(intercept), float(slope) * 1e6, len(pairs), sd, float(rates.mean()), float(((rates - rates.mean()) ** 2).sum()))
