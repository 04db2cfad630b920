"""Pinning: the fixture ran the smoke profile's pinning traps on JDK 25, where (JEP 491) only the
class-initializer and native-frame traps still pin: 8 requests each on the virtual-thread
server, 16 events, counted by hand in its pinned.csv. Platform threads and coroutines do not pin."""

import pytest

from labanalysis import pinning
from labanalysis.run import load_run


def test_events_total_and_longest_per_server(run_folder):
    table = pinning.summary(load_run(run_folder)).set_index("run")

    assert table.loc["vthread", "events"] == 16
    assert table.loc["vthread", "total_ms"] == pytest.approx(801.69016)
    assert table.loc["vthread", "max_ms"] == pytest.approx(50.186241)
    assert table.loc["coroutine", "events"] == 0
    assert table.loc["platform", "events"] == 0


def test_top_stacks_are_the_distinct_stacks_most_frequent_first(run_folder):
    stacks = pinning.top_stacks(load_run(run_folder).server("vthread"))

    assert list(stacks["events"]) == [8, 8]
    assert any("SleepingInClinit.<clinit>" in s for s in stacks["top_frames"])
    assert any("NativeFrameBlocker" in s for s in stacks["top_frames"])


def test_top_stacks_stop_at_the_limit(run_folder):
    assert len(pinning.top_stacks(load_run(run_folder).server("vthread"), limit=1)) == 1
