"""Pinning: the fixture ran the smoke profile's pinning traps on JDK 25, where (JEP 491) only the
class-initializer and native-frame traps still pin: on the virtual-thread server (jetty-virtual), 4
events over the 20 ms threshold, 2 of each trap, summed and counted with csv.DictReader over its
pinned.csv (durations 50.203409 + 50.087116 + ... = 200.566939 ms, the longest 50.203409). Platform
threads and coroutines do not pin: the other passes' pinned.csv are the header alone."""

import pytest

from labanalysis.bench import pinning
from labanalysis.folder.run import load_run


def test_events_total_and_longest_per_server(run_folder):
    table = pinning.summary(load_run(run_folder)).set_index("run")

    assert table.loc["jetty-virtual", "events"] == 4
    assert table.loc["jetty-virtual", "total_ms"] == pytest.approx(200.566939)
    assert table.loc["jetty-virtual", "max_ms"] == pytest.approx(50.203409)
    for name in ["ktor-coroutine", "jetty-coroutine", "jetty-platform"]:
        assert table.loc[name, "events"] == 0


def test_top_stacks_are_the_distinct_stacks_most_frequent_first(run_folder):
    stacks = pinning.top_stacks(load_run(run_folder).server("jetty-virtual"))

    assert list(stacks["events"]) == [2, 2]
    assert any("SleepingInClinit.<clinit>" in s for s in stacks["top_frames"])
    assert any("NativeFrameBlocker" in s for s in stacks["top_frames"])


def test_top_stacks_stop_at_the_limit(run_folder):
    assert len(pinning.top_stacks(load_run(run_folder).server("jetty-virtual"), limit=1)) == 1
