"""What the client experiments (`make clients`) tell a reader to pick, and whether the article's figures held: the client with the
fewest threads for many delayed calls, the fastest for large downloads, and the thread census's published rows beside this run's.
The figures are labanalysis.clients.clients'."""

from __future__ import annotations

import math

import pandas as pd

from .clients import CURL, ClientsRun, size_label, sizes, thread_medians

# The article's two tables (100 and 500 calls, answered after 2 s): active unparked new threads
# and execution time in ms. Its Retrofit, Ktor OkHttp, Apache5, Java and CIO rows; Fuel and
# Ktor's Apache 4 engine are not among the lab's clients.
PUBLISHED = {
    ("retrofit", 100): (101, 2264),
    ("ktor-okhttp", 100): (101, 2317),
    ("ktor-apache5", 100): (4, 2198),
    ("ktor-java", 100): (1, 2218),
    ("ktor-cio", 100): (1, 2242),
    ("retrofit", 500): (501, 2619),
    ("ktor-okhttp", 500): (501, 2425),
    ("ktor-apache5", 500): (4, 2624),
    ("ktor-java", 500): (1, 2511),
    ("ktor-cio", 500): (1, 11118),
}
# The article gives its times "+/- 300 ms"; a thread count holds if it is within this many threads.
TIME_SLACK_MS = 300
THREADS_SLACK = 1
# How close to the fastest client's median a client must be to share the pick for large downloads.
NEAR_BEST = 0.15


def claims_table(run: ClientsRun) -> pd.DataFrame:
    """The article's rows beside this run's medians: threads hold within one thread, times within its own +/- 300 ms."""
    medians = thread_medians(run).set_index(["client", "requests"])
    rows = []
    for (client, n), (threads, time_ms) in PUBLISHED.items():
        measured = medians.loc[(client, n)] if (client, n) in medians.index else None
        row = {"client": client, "calls": n, "article: threads": threads, "article: time (ms)": f"{time_ms:,}"}
        if measured is None:
            row.update({"measured: threads": "not measured", "threads held?": "", "measured: time (ms)": "", "time held?": ""})
        else:
            row["measured: threads"] = f"{measured['threads']:.0f} [{measured['threads_min']:.0f}-{measured['threads_max']:.0f}]"
            row["threads held?"] = _verdict(measured["threads"], threads, THREADS_SLACK)
            row["measured: time (ms)"] = f"{measured['wall_ms']:,.0f} [{measured['wall_ms_min']:,.0f}-{measured['wall_ms_max']:,.0f}]"
            row["time held?"] = _verdict(measured["wall_ms"], time_ms, TIME_SLACK_MS)
        rows.append(row)
    return pd.DataFrame(rows)


def _verdict(measured: float, claimed: float, slack: float) -> str:
    if abs(measured - claimed) <= slack:
        return "held"
    return f"no: {measured - claimed:+,.0f}"


def recommendations(run: ClientsRun) -> list[dict]:
    """The client to pick for many delayed calls and for large downloads, with the figures behind each choice."""
    out = []
    medians = thread_medians(run)
    if not medians.empty:
        most = medians["requests"].max()
        at_most = medians[medians["requests"] == most]
        # Few threads only counts if the calls still finish near the stub's delay.
        on_time = at_most[at_most["wall_ms"] <= run.delay_ms + TIME_SLACK_MS]
        pool = on_time if not on_time.empty else at_most
        fewest = pool["threads"].min()
        best = pool[pool["threads"] <= fewest + THREADS_SLACK].sort_values(["threads", "wall_ms"])
        worst = at_most.sort_values("threads").iloc[-1]
        out.append(
            {
                "need": f"many delayed calls ({most} at once, answered after {run.delay_ms} ms)",
                "pick": ", ".join(best["client"]),
                "because": f"{fewest:.0f} to {best['threads'].max():.0f} new unparked threads, done in "
                f"{best['wall_ms'].min() / 1000:.2f} to {best['wall_ms'].max() / 1000:.2f} s; "
                f"{worst['client']} blocked {worst['threads']:.0f}",
            }
        )
    d = run.downloads
    if not d.empty:
        largest = max(sizes(run))
        timed = d[(d["repeat"] > 0) & (d["sizeBytes"] == largest) & d["error"].isna()]
        rates = timed.groupby("client")["mbPerSecond"].median().sort_values(ascending=False)
        jvm = rates.drop(CURL, errors="ignore")
        if not jvm.empty:
            curl = rates.get(CURL, math.nan)
            # Loopback downloads vary run to run by more than the leaders differ: every client within NEAR_BEST of the best is a pick.
            near = jvm[jvm >= jvm.iloc[0] * (1 - NEAR_BEST)]
            out.append(
                {
                    "need": f"large downloads ({size_label(largest)}, one at a time)",
                    "pick": ", ".join(near.index),
                    "because": f"{near.iloc[-1]:,.0f} to {near.iloc[0]:,.0f} MB/s, medians over the {timed['server'].nunique()} servers "
                    f"(within {NEAR_BEST:.0%} of the best); "
                    f"slowest {jvm.index[-1]} {jvm.iloc[-1]:,.0f} MB/s; curl {curl:,.0f} MB/s",
                }
            )
    return out
