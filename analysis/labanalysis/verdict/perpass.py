"""Every compared figure, once per pass: the one table the headline ("who wins what"), the engine x model grid and the repeats read.

Each figure is computed by the module that owns its statistic (memory's slopes, latency's percentiles, cpu's CPU per request);
this module only lays them out, one row per pass and figure. Across passes, stats.across makes each server's median and interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..bench import cpu, latency, memory, pinning, runtime
from ..curve import curve
from ..folder import catalogue, repeats
from ..folder.run import Run, ServerRun

KIB = 1 << 10


@dataclass(frozen=True)
class Figure:
    # What frames and dicts are keyed by: an identifier with the unit in it. A reader sees `label` instead, in every table and plot.
    key: str
    label: str
    unit: str
    lower_is_better: bool = True
    # The run settings (compare.settings: the profile's, with the rate, sockets and pinning threshold the run used) the figure depends
    # on: two runs that differ in one of them measured two different things, and a comparison of the two says so instead of a ratio.
    settings: tuple[str, ...] = ()


# What a per-socket slope depends on: how many sockets it is fitted over, the heap they live in, and the CPUs the JVM sized itself to.
PER_SOCKET = ("idleSockets", "heapMb", "serverCpus")
# What a latency under load depends on besides its own rate: the sockets open meanwhile, and the server's heap and CPUs.
UNDER_LOAD = ("idleSockets", "heapMb", "serverCpus")

LIVE_HEAP = Figure("live_heap_per_socket_kib", "live heap per idle socket (KiB)", "KiB", settings=PER_SOCKET)
NATIVE = Figure("native_per_socket_kib", "native memory (NMT, not the heap) per idle socket (KiB)", "KiB", settings=PER_SOCKET)
KERNEL = Figure("kernel_per_socket_kib", "kernel memory per idle socket (KiB)", "KiB", settings=PER_SOCKET)
RSS = Figure("rss_per_socket_kib", "RSS per idle socket (KiB)", "KiB", settings=PER_SOCKET)
PSS = Figure("pss_per_socket_kib", "PSS per idle socket (KiB)", "KiB", settings=PER_SOCKET)
HELD = Figure("held_per_socket_kib", "memory an idle socket holds (live heap + native + kernel, KiB)", "KiB", settings=PER_SOCKET)
# What the steady /json phase's figures depend on besides: its rate, and the load generator that offered it (k6 unless the profile's
# jsonGenerator says vegeta), whose own delays are in its timings and whose pacing is in what the server was sent.
JSON_STEADY = ("jsonRatePerSecond", "jsonGenerator", *UNDER_LOAD)
JSON_P50 = Figure("json_p50_ms", "/json p50 (ms)", "ms", settings=JSON_STEADY)
JSON_P99 = Figure("json_p99_ms", "/json p99 (ms)", "ms", settings=JSON_STEADY)
# The same requests timed on the wire: the server's share of JSON_P99, without the load generator's delays (latency.wire_durations).
JSON_WIRE_P99 = Figure("json_wire_p99_ms", "/json p99 on the wire (ms)", "ms", settings=JSON_STEADY)
DASHBOARD_P99 = Figure("dashboard_p99_ms", "/dashboard p99 (ms)", "ms", settings=("dashboardRatePerSecond", *UNDER_LOAD))
JSON_ACHIEVED = Figure(
    "json_achieved_per_s", "/json achieved (req/s)", "req/s", lower_is_better=False, settings=("jsonRatePerSecond", "jsonGenerator")
)
JSON_DROPPED = Figure("json_dropped_iterations", "/json dropped iterations", "iterations", settings=("jsonSeconds", *JSON_STEADY))
CPU = Figure("server_cpu_per_json_request_us", "server CPU per /json request (µs)", "µs", settings=("jsonRatePerSecond", *UNDER_LOAD))
# The same less what the JIT's compilers took meanwhile (cpu.server_cpu_per_request_less_jit): what a request costs a server long up.
CPU_LESS_JIT = Figure(
    "server_cpu_per_json_request_less_jit_us", "server CPU per /json request, its JIT apart (µs)", "µs", settings=("jsonRatePerSecond", *UNDER_LOAD)
)
# A thread per socket on the platform server; the pools size themselves to the CPUs.
THREADS = Figure("peak_os_threads", "peak OS threads", "threads", settings=("idleSockets", "serverCpus"))
# A count: how often the traps were sprung, for how long, and from what duration an event is recorded.
PINNED = Figure(
    "pinned_events",
    "pinned events",
    "events",
    settings=("pinTrapsPerSecond", "pinThresholdMs", "jsonSeconds", "dashboardRatePerSecond", "dashboardSeconds"),
)

# From the latency-throughput curve (curve), in a run that has one: what a model buys under load. A rate held at every step is the
# curve's top, a floor under the server's limit (the curve's own section says which).
# The curve's load generator (k6 unless the profile says vegeta) is a setting: one that cannot offer a rate moves the curve's top. So
# is the server's CPU budget in the steps: a limit at 0.4 of a CPU is not one at a whole CPU. And so is the count of vegeta's
# connections: on 0.4 of a CPU, 64 connections carried about twice the answers 512 did (loadtests/probes/connections-under-budget.sh).
UNDER_LOAD_CURVE = (
    "jsonCurveRatesPerSecond",
    "dashboardCurveRatesPerSecond",
    "curveStepSeconds",
    "curveGenerator",
    "curveConnections",
    "curveServerCpuBudget",
    *UNDER_LOAD,
)
JSON_SUSTAINED = Figure(
    "json_sustained_per_s",
    "highest sustained /json rate (req/s)",
    "req/s",
    lower_is_better=False,
    settings=("jsonCurveP99BoundMs", *UNDER_LOAD_CURVE),
)
DASHBOARD_SUSTAINED = Figure(
    "dashboard_sustained_per_s",
    "highest sustained /dashboard rate (req/s)",
    "req/s",
    lower_is_better=False,
    settings=("dashboardCurveP99BoundMs", *UNDER_LOAD_CURVE),
)
JSON_CPU_SLOPE = Figure("json_cpu_slope_us", "server CPU per /json request, the curve's slope (µs)", "µs", settings=UNDER_LOAD_CURVE)
# What a core of the server's CPU served where that CPU was full (curve_verdicts.served_when_full): measured, fixed part paid, and
# read off the step that served the most, not off one second's p99 as the highest step held is. Not the line of CPU against the
# rates held (stats.capacity), which read well under it and misordered the models: a server's CPU per request falls as its rate
# rises, more for some models than others, and a line through the low steps carries the low steps' cost to the top
# (docs/under-load.md, "Capacity per CPU").
JSON_CAPACITY = Figure(
    "json_capacity_per_cpu", "/json capacity per CPU (req/s a core)", "req/s a core", lower_is_better=False, settings=UNDER_LOAD_CURVE
)
DASHBOARD_CAPACITY = Figure(
    "dashboard_capacity_per_cpu", "/dashboard capacity per CPU (req/s a core)", "req/s a core", lower_is_better=False, settings=UNDER_LOAD_CURVE
)
CURVE = {
    JSON_SUSTAINED: ("json", "highest_sustained_per_s"),
    DASHBOARD_SUSTAINED: ("dashboard", "highest_sustained_per_s"),
    JSON_CPU_SLOPE: ("json", "cpu_us_per_request"),
    JSON_CAPACITY: ("json", "served_per_cpu"),
    DASHBOARD_CAPACITY: ("dashboard", "served_per_cpu"),
}
# A capacity per CPU is a floor where the pass's fullest step answered all it was offered and no step offered more
# (curve_verdicts.served_full_is_floor): the ladder ended before the server did, and its figure is bounded below, not measured.
FLOORS = {JSON_CAPACITY: ("json", "served_full_is_floor"), DASHBOARD_CAPACITY: ("dashboard", "served_full_is_floor")}

# The memory a socket holds leads (memory.HELD: its parts' sum, a platform thread's stack and kernel stack with them, where the
# live heap alone leaves both out), then what the process has resident (PSS: its pages, shared ones split among the processes
# that map them; then RSS), then the parts.
FIGURES = [
    HELD,
    PSS,
    RSS,
    LIVE_HEAP,
    NATIVE,
    KERNEL,
    JSON_P50,
    JSON_P99,
    JSON_WIRE_P99,
    DASHBOARD_P99,
    JSON_ACHIEVED,
    JSON_DROPPED,
    CPU,
    CPU_LESS_JIT,
    JSON_SUSTAINED,
    DASHBOARD_SUSTAINED,
    JSON_CPU_SLOPE,
    JSON_CAPACITY,
    DASHBOARD_CAPACITY,
    THREADS,
    PINNED,
]
BY_KEY = {f.key: f for f in FIGURES}
# What a pass counts in bytes at rest: the CPU the host takes delays a pass, and moves none of these. Not the peak threads, which
# the load's phases set, where a slowed server holds more.
UNTIMED = (HELD, PSS, RSS, LIVE_HEAP, NATIVE, KERNEL)
# The memory measures (memory.MEASURES) each per-socket figure is.
MEMORY = {HELD: memory.HELD, LIVE_HEAP: "live heap", NATIVE: "native (NMT, not the heap)", KERNEL: "kernel memory", RSS: "RSS", PSS: "PSS"}
# The latencies k6 timed, which a load generator short of CPU delays (cpu.bottleneck); a saturated server (cpu.saturated) delays
# those and the wire's alike.
LATENCY = [JSON_P50, JSON_P99, DASHBOARD_P99]
SERVER_LATENCY = [*LATENCY, JSON_WIRE_P99]


def label(key: str) -> str:
    """What a reader sees for the figure `key`; anything that is no figure's key (a column of marks) as it is."""
    figure = BY_KEY.get(key)
    return figure.label if figure else key


def table(runs: list[Run]) -> pd.DataFrame:
    """One row per compared pass (repeats.each_pass) and figure: PASS_COLUMNS, round, figure, value, the pass's own interval
    (within_pass_low, within_pass_high: how precisely this pass measured it, NaN for a figure without one, `intervals_of`),
    `bottleneck`, why the pass's load generator was its bottleneck, and `saturated`, why its server was (each empty when it was
    not); `floor`, whether the value is only a floor under the pass's figure (FLOORS). Runs on another JDK than the first's are
    left out (repeats.left_out)."""
    rows, tables = [], {}
    for run, server, base in repeats.each_pass(runs):
        if run.folder not in tables:
            tables[run.folder] = (
                {endpoint: latency.endpoint_table(run, endpoint).set_index("run") for endpoint in ("json", "dashboard")},
                pinning.summary(run).set_index("run"),
            )
        endpoints, pins = tables[run.folder]
        values = values_of(run, server, endpoints, pins)
        under_load = curve.of_pass(run, server, base)
        values.update({figure: under_load.get(endpoint, {}).get(key, math.nan) for figure, (endpoint, key) in CURVE.items()})
        floors = {figure: bool(under_load.get(endpoint, {}).get(key, False)) for figure, (endpoint, key) in FLOORS.items()}
        marks = {
            "bottleneck": cpu.bottleneck(server) or "",
            "saturated": cpu.saturated(server, cpu.server_cpu_count(run)) or "",
            "host": cpu.host_took(server, cpu.host_cpus(run)) or "",
        }
        intervals = intervals_of(server)
        # The pass's round (its repeat): the verdict sets two servers against each other within a round (stats.in_rounds).
        rows += [
            {
                **base,
                "round": server.repeat,
                "figure": f.key,
                "value": value,
                **_interval(intervals.get(f, _NO_INTERVAL)),
                **marks,
                "floor": floors.get(f, False),
            }
            for f, value in values.items()
        ]
    return pd.DataFrame(
        rows,
        columns=[
            *repeats.PASS_COLUMNS,
            "round",
            "figure",
            "value",
            "within_pass_low",
            "within_pass_high",
            "bottleneck",
            "saturated",
            "host",
            "floor",
        ],
    )


def rounds_host_took(per_pass: pd.DataFrame) -> dict[tuple[str, int], list[str]]:
    """{(run folder, round): ["pass: why", ...]} of the rounds in which the host took some pass (table's `host`); empty where none,
    or the rows were made before the column."""
    if "host" not in per_pass.columns:
        return {}
    taken = per_pass[per_pass["host"].fillna("") != ""].drop_duplicates(["run folder", "pass"])
    found: dict[tuple[str, int], list[str]] = {}
    for _, r in taken.iterrows():
        found.setdefault((r["run folder"], int(r["round"])), []).append(f"{r['pass']}: {r['host']}")
    return found


def left_out(per_pass: pd.DataFrame) -> str:
    """The rounds judged leaves out, in a sentence a reader sees beside the verdict; empty where it leaves none."""
    taken = rounds_host_took(per_pass)
    if not taken:
        return ""
    return (
        "Left out of the verdict, who wins what, the grid and a comparison of runs, as rounds the host took, but for the memory a "
        f"pass counts at rest: {rounds_said(taken)}."
    )


def rounds_said(taken: dict[tuple[str, int], list[str]]) -> str:
    """rounds_host_took's rounds as a reader sees them: `round 2 of `run` (pass: why)`, each after the last."""
    return "; ".join(f"round {r} of `{folder}` ({', '.join(why)})" for (folder, r), why in taken.items())


def for_verdict(per_pass: pd.DataFrame) -> pd.DataFrame:
    """judged's rows less the arms (catalogue.without_arms): what the verdict and who wins what set against each other. The rounds
    are left out first, so that a round the host took in an arm's pass is left out as in any other."""
    return catalogue.without_arms(judged(per_pass))


def judged(per_pass: pd.DataFrame) -> pd.DataFrame:
    """table's rows without the rounds the host took (rounds_host_took) of the figures its CPU moves (not UNTIMED): what the verdict,
    who wins what and a comparison of two runs set against each other. A whole round, not the one pass: a round's servers are
    compared with each other, and the passes run after the host took one were slowed with no steal of their own
    (cpu.HOST_TOOK_SHARE)."""
    taken = rounds_host_took(per_pass)
    if not taken:
        return per_pass
    untimed = {f.key for f in UNTIMED}
    keep = [
        figure in untimed or (folder, int(r)) not in taken
        for folder, r, figure in zip(per_pass["run folder"], per_pass["round"], per_pass["figure"], strict=True)
    ]
    return per_pass[keep]


_NO_INTERVAL = (math.nan, math.nan)


def _interval(low_high: tuple[float, float]) -> dict[str, float]:
    return {"within_pass_low": low_high[0], "within_pass_high": low_high[1]}


def intervals_of(server: ServerRun) -> dict[Figure, tuple[float, float]]:
    """The figures a pass measures with an interval of its own, each (low, high): the wire's /json p99, by its block bootstrap over
    the phase's seconds (latency.percentile_interval). The steady phase's few seconds decide its p99 by the handful that held a
    stall, so a pass's p99 is imprecise in a way its value alone does not show; the verdict does not order two servers on a round
    in which their intervals overlap (stats.apart_in_rounds)."""
    _, low, high = latency.percentile_interval(latency.wire_timed(server, "json"), 99)
    return {JSON_WIRE_P99: (low, high)}


def values_of(run: Run, server: ServerRun, endpoints: dict[str, pd.DataFrame], pins: pd.DataFrame) -> dict[Figure, float]:
    """One pass's figures."""
    json_table = endpoints["json"]
    achieved = json_table.loc[server.name, "requests_per_second"]
    values = {figure: memory.per_socket_fit(server, measure).slope / KIB for figure, measure in MEMORY.items()}
    values.update(
        {
            JSON_P50: percentile(server, "json", 50, json_table, "p(50)"),
            JSON_P99: percentile(server, "json", 99, json_table, "p(99)"),
            JSON_WIRE_P99: latency.percentile(latency.wire_durations(server, "json"), 99),
            DASHBOARD_P99: percentile(server, "dashboard", 99, endpoints["dashboard"], "p(99)"),
            JSON_ACHIEVED: achieved,
            JSON_DROPPED: json_table.loc[server.name, "dropped_iterations"],
            CPU: 1e6 * cpu.server_cpu_per_request(server, achieved),
            CPU_LESS_JIT: 1e6 * cpu.server_cpu_per_request_less_jit(server, achieved),
            THREADS: runtime.peak_threads(server),
            PINNED: float(pins.loc[server.name, "events"]),
        }
    )
    return values


def percentile(server: ServerRun, endpoint: str, q: float, table: pd.DataFrame, column: str) -> float:
    """k6's rule over the pass's raw samples; k6's own summary where the samples are missing."""
    samples = latency.durations(server, endpoint)
    if len(samples):
        return latency.percentile(samples, q)
    return float(table.loc[server.name, column]) if column in table.columns else math.nan


def by_round(rows: pd.DataFrame) -> dict[tuple[str, int], float]:
    """{(run folder, round): value} of `rows` (table's, of one server or model and one figure): what stats.in_rounds pairs."""
    return {(r["run folder"], int(r["round"])): float(r["value"]) for _, r in rows.iterrows()}


def intervals_by_round(rows: pd.DataFrame) -> dict[tuple[str, int], tuple[float, float]]:
    """{(run folder, round): (low, high)} of `rows` (table's, of one server or model and one figure) that carry the pass's own
    interval; empty where none does (a figure without one, or rows made before the column)."""
    if "within_pass_low" not in rows.columns:
        return {}
    found = rows[rows["within_pass_low"].notna() & rows["within_pass_high"].notna()]
    return {(r["run folder"], int(r["round"])): (float(r["within_pass_low"]), float(r["within_pass_high"])) for _, r in found.iterrows()}


def floors_by_round(rows: pd.DataFrame) -> set[tuple[str, int]]:
    """The (run folder, round) keys of `rows` (table's, of one server or model and one figure) whose value is a floor (FLOORS); empty
    where none is, or the rows were made before the column."""
    if "floor" not in rows.columns:
        return set()
    found = rows[rows["floor"].fillna(False).astype(bool) & rows["value"].notna()]
    return {(r["run folder"], int(r["round"])) for _, r in found.iterrows()}


def per_server(per_pass: pd.DataFrame) -> pd.DataFrame:
    """Per server and figure: the median across its passes, their range (low, high; NaN with one pass), and how many passes."""
    return repeats.per_server(per_pass, value="value", by=("figure",))


def passes_table(per_pass: pd.DataFrame, figures: list[Figure] = FIGURES) -> pd.DataFrame:
    """The per-pass figures for a reader: one row per pass (in the order the passes ran within each run), one column per figure, and
    the marks."""
    if per_pass.empty:
        return pd.DataFrame()
    wide = per_pass.pivot_table(index=["run folder", "pass", "label"], columns="figure", values="value", aggfunc="first", sort=False)
    wide = wide.reindex(columns=[f.key for f in figures if f.key in wide.columns]).rename(columns=label)
    marks = per_pass.drop_duplicates(["run folder", "pass"]).set_index(["run folder", "pass", "label"])
    wide["load generator"] = marks["bottleneck"].map(lambda why: "the bottleneck: latency measures k6" if why else "")
    wide["server's CPUs"] = marks["saturated"].map(_cpus_full_words)
    if "host" in marks.columns:
        wide["the host"] = marks["host"].fillna("").map(lambda why: "took the pass: its round is left out of the verdict" if why else "")
    wide.columns.name = None
    return wide.reset_index().rename(columns={"label": "server"})


def _cpus_full_words(why_saturated: str) -> str:
    """A pass's mark on its server's CPUs (cpu.saturated), in a table cell's words."""
    if cpu.shared_by_others(why_saturated):
        return "shared with other work: its figures hold that work"
    return "saturated: latency holds a queue" if why_saturated else ""
