"""What streaming JFR costs a server: the jfr-overhead profile runs every server with the stream and without it, interleaved, and
this compares the two sets of passes, each pass the unit.

The cost is read as the server's CPU per /json request at the profile's fixed rate, not as throughput at saturation. With the load
generator on one CPU and the server on the other (this lab's 2-core hosts), k6 runs out of CPU first: offered 6,000/s, the servers
"reached" what k6 could send, so the achieved rates measured k6 (docs/JOURNAL.md). A server whose throughput is bound by its CPU serves at
most its cores over its CPU per request, so the stream's share of the CPU per request is the share of saturated throughput it
costs, and it can be measured at a rate both k6 and the server keep up with. The /json p99 at that rate is shown beside it.
"""

from __future__ import annotations

import pandas as pd

from .. import stats
from ..bench import cpu, latency
from ..folder import repeats
from ..folder.run import Run, ServerRun
from ..stats.numbers import shown
from . import perpass

WITH, WITHOUT = "with the JFR stream", "without it"
COLUMNS = [*repeats.PASS_COLUMNS, "stream", "figure", "value"]


def measured(run: Run) -> bool:
    """Whether the run has passes without the stream (the jfr-overhead profile's), so that there is a cost to show."""
    return any(not s.jfr_streaming for s in run.servers)


def _ended_ok(run: Run) -> list[ServerRun]:
    return [s for s in run.servers if s.ok]


def per_pass(run: Run) -> pd.DataFrame:
    """One row per pass that ended ok, with the stream or without, and figure (server CPU per request, /json p99, /json achieved):
    COLUMNS."""
    json_table = latency.endpoint_table(run, "json").set_index("run")
    rows = []
    for _, server, base in repeats.each_pass([run], passes=_ended_ok):
        achieved = json_table.loc[server.name, "requests_per_second"]
        values = {
            perpass.CPU: 1e6 * cpu.server_cpu_per_request(server, achieved),
            perpass.JSON_P99: perpass.percentile(server, "json", 99, json_table, "p(99)"),
            perpass.JSON_ACHIEVED: achieved,
        }
        stream = WITH if server.jfr_streaming else WITHOUT
        rows += [{**base, "stream": stream, "figure": figure.key, "value": value} for figure, value in values.items()]
    return pd.DataFrame(rows, columns=COLUMNS)


def table(run: Run) -> pd.DataFrame:
    """Per server and figure: the median [range] across passes with the stream and without it, the ratio of the two medians, and
    whether the passes with the stream and those without it are apart (every pass of one set above every pass of the other)."""
    passes = per_pass(run)
    rows = []
    for (label, figure), group in passes.groupby(["label", "figure"], sort=False):
        with_, without = (stats.across(group.loc[group["stream"] == stream, "value"]) for stream in (WITH, WITHOUT))
        rows.append(
            {
                "server": label,
                "figure": perpass.label(figure),
                WITH: shown(with_),
                WITHOUT: shown(without),
                "with / without": with_.median / without.median if without.median else float("nan"),
                "apart?": _verdict(with_, without),
            }
        )
    return pd.DataFrame(rows, columns=["server", "figure", WITH, WITHOUT, "with / without", "apart?"])


def _verdict(with_: stats.Across, without: stats.Across) -> str:
    return {
        None: stats.ONE_PASS,
        1: "higher with the stream in every pass",
        -1: "lower with the stream in every pass",
        0: "overlap across passes: not resolved",
    }[stats.order(with_, without)]
