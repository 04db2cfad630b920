import json
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from labanalysis.bench import zgc
from labanalysis.folder.run import load_run


def _wire(stalled_from_s: float, stalled_to_s: float) -> pd.DataFrame:
    """A thousand requests a second for 20 s, 1 ms each, but 30 ms for those that arrived in [stalled_from_s, stalled_to_s)."""
    times = [i / 1000 for i in range(20_000)]
    return pd.DataFrame({"time_s": times, "ms": [30.0 if stalled_from_s <= t < stalled_to_s else 1.0 for t in times]})


def test_the_requests_that_arrived_in_a_major_cycle_are_told_apart_from_the_others():
    # A cycle from 12 s to 14 s, on a wire whose requests were slow in exactly those seconds: a tenth of them arrived in it.
    found = zgc.wire_during_major(_wire(12.0, 14.0), pd.DataFrame({"from_s": [12.0], "to_s": [14.0]}))

    assert found["major_s"] == pytest.approx(2.0)
    assert found["during_percent"] == pytest.approx(10.0)
    assert (found["p99_during_ms"], found["p99_outside_ms"]) == (30.0, 1.0)
    assert found["p99_ms"] == 30.0


def test_a_cycle_counts_only_the_seconds_it_overlaps_the_requests_and_a_slow_second_outside_it_stays_outside():
    # The cycle began 5 s before the first request and ran 3 s into them; the slow seconds came later, with no cycle.
    found = zgc.wire_during_major(_wire(15.0, 16.0), pd.DataFrame({"from_s": [-5.0], "to_s": [3.0]}))

    assert found["major_s"] == pytest.approx(3.0)
    assert found["p99_during_ms"] == 1.0
    assert found["p99_outside_ms"] == 30.0


def test_without_a_cycle_every_request_is_outside_and_the_during_side_has_no_p99():
    found = zgc.wire_during_major(_wire(0.0, 0.0), pd.DataFrame(columns=["from_s", "to_s"]))

    assert (found["major_s"], found["during_percent"]) == (0.0, 0.0)
    assert math.isnan(found["p99_during_ms"]) and found["p99_outside_ms"] == 1.0


def _series(*rows: tuple[float, str, float]) -> SimpleNamespace:
    """A pass whose JFR series holds `rows`: (time_s, metric, value), as jfr-series.csv has them."""
    return SimpleNamespace(jfr=pd.DataFrame(rows, columns=["time_s", "metric", "value"]))


def test_a_warm_up_cycle_counts_the_seconds_it_ran_in_the_phase_and_one_before_it_none():
    # The phase's requests arrive from 51 s to 66 s; the second warm-up cycle ended before it, the third ran 1.1 s inside it.
    server = _series((42.0, zgc.MAJOR, 0.9), (42.0, zgc.WARMUP, 0.9), (57.6, zgc.MAJOR, 1.1), (57.6, zgc.WARMUP, 1.1), (60.0, zgc.MAJOR, 2.0))
    phase = pd.DataFrame({"time_s": [51.0 + i / 100 for i in range(1501)]})

    assert zgc.warmup_seconds_within(server, phase) == pytest.approx(1.1)


def test_a_series_that_names_no_warm_up_cycle_says_nothing_of_them_rather_than_none():
    # A run made before the series named them: its major cycle may have been one, and the table must not say it was not.
    server = _series((57.6, zgc.MAJOR, 1.1))

    assert math.isnan(zgc.warmup_seconds_within(server, pd.DataFrame({"time_s": [51.0, 66.0]})))


def test_the_phase_table_shows_a_zgc_runs_passes_and_none_of_a_run_on_g1(run_folder):
    assert len(zgc.stalls_table([load_run(run_folder)])) == 4

    manifest = json.loads((run_folder / "manifest.json").read_text())
    (run_folder / "manifest.json").write_text(json.dumps({**manifest, "collector": "g1"}))

    assert zgc.stalls_table([load_run(run_folder)]).empty
